import { execFileSync } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { access, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { resolveOracleToolchain, trustedPathDirs } from '../../src/oracle/toolchain.ts'
import { SYSTEM_READ_ONLY } from '../../src/sandbox/index.ts'
import { createExperimentFixture } from '../helpers/experiment-fixture.ts'
import { findPytestPython } from '../helpers/throwaway.ts'

const python = findPytestPython()
const isSystem = (dir: string) => SYSTEM_READ_ONLY.some((root) => dir === root || dir.startsWith(`${root}/`))

describe("the oracle's toolchain", () => {
  test('PATH entries inside the project, relative ones and any node_modules/.bin are dropped', async () => {
    const project = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-project-'))
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-elsewhere-'))
    await mkdir(path.join(project, 'node_modules', '.bin'), { recursive: true })
    await mkdir(path.join(elsewhere, 'node_modules', '.bin'), { recursive: true })
    const host = [path.join(project, 'node_modules', '.bin'), 'relative/bin', path.join(elsewhere, 'node_modules', '.bin'), '/usr/bin', '/bin'].join(':')
    expect(trustedPathDirs(host, [project])).toEqual(['/usr/bin', '/bin'])
  })

  test("node is the harness's own, bash and python3 absolute, and the PATH finds them first", async () => {
    const toolchain = await resolveOracleToolchain(process.env.PATH, [])
    expect(toolchain.binaries.node).toBe(await import('node:fs').then((fs) => fs.realpathSync(process.execPath)))
    for (const file of Object.values(toolchain.binaries)) expect(path.isAbsolute(file)).toBe(true)
    expect(toolchain.path.split(':')[0]).toBe(path.dirname(toolchain.binaries.node!))
    expect(toolchain.label).toMatch(new RegExp(`^node ${process.version.replace(/\./g, '\\.')} /\\S+; (python3 \\S+ /\\S+; )?bash \\S+ /\\S+$`))
  })

  test.skipIf(python === null)("a virtualenv's python3 is kept as its own (never resolved to the base) and its prefix and the base's are mounted", async () => {
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-venv-'))
    const venv = path.join(scratch, 'venv')
    execFileSync(python!, ['-m', 'venv', '--without-pip', venv])
    const base = execFileSync(path.join(venv, 'bin', 'python3'), ['-c', 'import sys; print(sys.base_prefix)'], { encoding: 'utf8' }).trim()
    const toolchain = await resolveOracleToolchain(`${path.join(venv, 'bin')}:${process.env.PATH}`, [])
    expect(toolchain.binaries.python3).toBe(path.join(venv, 'bin', 'python3'))
    // A prefix the sandbox mounts anyway (Debian's /usr) is not bound again.
    expect(toolchain.mounts).toEqual(expect.arrayContaining([venv, ...(isSystem(base) ? [] : [base])]))
    expect(toolchain.label).toMatch(new RegExp(`; python3 \\S+ ${path.join(venv, 'bin', 'python3')} \\(virtualenv of ${base}\\); `))
    await rm(scratch, { recursive: true, force: true })
  })

  test.skipIf(python === null)('python3 a link into another installation resolves to it, with its whole prefix mounted', async () => {
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-link-'))
    const real = realpathSync(execFileSync(python!, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim())
    const prefix = execFileSync(real, ['-c', 'import sys; print(sys.prefix)'], { encoding: 'utf8' }).trim()
    await symlink(real, path.join(scratch, 'python3'))
    const toolchain = await resolveOracleToolchain(`${scratch}:/usr/bin:/bin`, [])
    expect(toolchain.binaries.python3).toBe(real)
    expect(toolchain.mounts).toEqual(expect.arrayContaining([path.dirname(real), ...(isSystem(prefix) ? [] : [prefix])]))
    await rm(scratch, { recursive: true, force: true })
  })
})

// A hostile `command` agent that plants a `node` on the harness's PATH, where
// `npx` puts the project's node_modules/.bin, hoping the oracle runs it. The
// experiment runs with `sandbox: 'none'` so the folder is within its reach.
describe('a node shim planted on the PATH during the run', () => {
  test('never runs in the oracle: the run is unsolved and its record names the real node', async () => {
    const fixture = await createExperimentFixture(
      [{ id: '001-port', starting: { 'port.txt': '0\n' }, verify: `node -e "process.exit(require('fs').readFileSync('port.txt', 'utf8').trim() === '8080' ? 0 : 1)"` }],
      { arms: { noop: {}, hostile: { agent: { kind: 'command', bin: './plant.sh' } } }, control: 'noop', seeds: 1, sandbox: 'none' },
    )
    const bin = path.join(fixture.root, 'node_modules', '.bin')
    const ran = path.join(fixture.root, 'shim-ran')
    await mkdir(bin, { recursive: true })
    await fixture.writeAgent('plant.sh', [`printf '#!/bin/sh\\ntouch ${ran}\\nexit 0\\n' > ${bin}/node`, `chmod +x ${bin}/node`, `echo '{"status":"completed","costUsd":0.01}'`])
    const result = await fixture.vitest(['-t', 'hostile'], { env: { PATH: `${bin}:${process.env.PATH}` } })
    expect(result.exitCode, result.all).toBe(0)
    const [record] = await fixture.runs()
    expect(record).toMatchObject({ arm: 'hostile', outcome: 'unsolved', oracle: { verifyExit: 1 } })
    expect((record!.versions as { toolchain: string }).toolchain).toContain(`node ${process.version} /`)
    expect((record!.versions as { toolchain: string }).toolchain).not.toContain(bin)
    await expect(access(ran)).rejects.toThrow()
  })
})
