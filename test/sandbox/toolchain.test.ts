import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { toolchainMounts } from '../../src/sandbox/toolchain.ts'

// The toolchain folders a sandboxed process sees read-only: the harness's Node and the PATH's folders, never a
// folder of the project (its node_modules/.bin). PATHs laid out by hand in a temporary folder.

let dir: string
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolchain-test-')))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const node = path.dirname(process.execPath)
/** The harness's Node folder, by its path and its real path (both mounted when they differ). */
const nodeMounts = [...new Set([node, realpathSync(node)])]
const made = (...parts: string[]) =>
  parts.map((part) => {
    mkdirSync(path.join(dir, part), { recursive: true })
    return path.join(dir, part)
  })
const sorted = (dirs: string[]) => [...new Set(dirs)].sort()

describe('toolchainMounts', () => {
  test('is the harness’s own Node folder without a PATH', () => {
    expect(toolchainMounts(undefined, [])).toStrictEqual(sorted(nodeMounts))
    expect(toolchainMounts('', [])).toStrictEqual(sorted(nodeMounts))
  })

  test('adds each absolute folder of the PATH that exists, sorted, each once', () => {
    const [b, a] = made('b/bin', 'a/bin')
    expect(toolchainMounts([b, a, b, path.join(dir, 'missing')].join(':'), [])).toStrictEqual(sorted([...nodeMounts, a!, b!]))
  })

  test('skips relative and empty entries of the PATH', () => {
    const [bin] = made('bin')
    const relative = path.relative(process.cwd(), bin!)
    expect(toolchainMounts([relative, '', `./${relative}`, bin].join(':'), [])).toStrictEqual(sorted([...nodeMounts, bin!]))
  })

  test('mounts a folder reached by a link both as the link and as its real folder', () => {
    const [real] = made('real/bin')
    symlinkSync(real!, path.join(dir, 'linked'))
    expect(toolchainMounts(path.join(dir, 'linked'), [])).toStrictEqual(sorted([...nodeMounts, path.join(dir, 'linked'), real!]))
  })

  test.each([
    ['the excluded folder itself', 'project'],
    ['a folder inside it (its node_modules/.bin)', 'project/node_modules/.bin'],
  ])('leaves out %s', (_what, inside) => {
    const [project] = made('project')
    const [bin] = made(inside)
    expect(toolchainMounts(bin, [project!])).toStrictEqual(sorted(nodeMounts))
  })

  test('keeps a folder whose name only starts like an excluded one', () => {
    const [project] = made('project')
    const [sibling] = made('project-tools/bin')
    expect(toolchainMounts(sibling, [project!])).toStrictEqual(sorted([...nodeMounts, sibling!]))
  })

  test('leaves out a link whose real folder is inside the project, and a link inside it to a folder outside', () => {
    const [project, outside] = made('project/node_modules/.bin', 'outside/bin')
    symlinkSync(project!, path.join(dir, 'to-project'))
    symlinkSync(outside!, path.join(dir, 'project/to-outside'))
    const exclude = [path.join(dir, 'project')]
    expect(toolchainMounts([path.join(dir, 'to-project'), path.join(dir, 'project/to-outside')].join(':'), exclude)).toStrictEqual(sorted(nodeMounts))
  })

  test('leaves out the harness’s own Node when it is inside an excluded folder', () => {
    expect(toolchainMounts(undefined, [node])).toStrictEqual([])
  })

  test.each([
    ['a pyenv shims folder brings the pyenv root the shims run', '.pyenv/shims', '.pyenv'],
    ['a root named like pyenv', 'my-pyenv/shims', 'my-pyenv'],
    ['a plugin’s shims, three levels below a pyenv root, bring the root', '.pyenv/plugins/pyenv-virtualenv/shims', '.pyenv'],
    ['shims two levels below a pyenv root are themselves', '.pyenv/plugins/shims', '.pyenv/plugins/shims'],
    ['a shims folder of no pyenv is itself', 'tools/shims', 'tools/shims'],
    ['a pyenv folder that is no shims is itself', '.pyenv/bin', '.pyenv/bin'],
    ['a version’s bin, three levels below a pyenv root, is itself', '.pyenv/versions/3.12/bin', '.pyenv/versions/3.12/bin'],
  ])('%s', (_what, entry, mounted) => {
    made(entry)
    expect(toolchainMounts(path.join(dir, entry), [])).toStrictEqual(sorted([...nodeMounts, path.join(dir, mounted)]))
  })
})
