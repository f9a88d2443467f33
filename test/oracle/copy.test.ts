import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { oracleCopy } from '../../src/oracle/copy.ts'
import { parentTemplate } from '../../src/workspace/template.ts'
import { buildRepo } from '../helpers/throwaway.ts'

// The oracle's clean tree of a parent commit, made from real repositories and templates: a copy on disk, an
// overlay (real mounts in a namespace of their own), a plain copy on a tmpfs, and the fallbacks between them.

let root: string
const saved = { templates: process.env.TASK_OUTCOME_TEMPLATES, overlay: process.env.TASK_OUTCOME_OVERLAY }
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-oracle-copy-'))
  process.env.TASK_OUTCOME_TEMPLATES = path.join(root, 'templates')
})
afterEach(() => {
  process.env.TASK_OUTCOME_TEMPLATES = path.join(root, 'templates')
  if (saved.overlay === undefined) delete process.env.TASK_OUTCOME_OVERLAY
  else process.env.TASK_OUTCOME_OVERLAY = saved.overlay
})
afterAll(async () => {
  if (saved.templates === undefined) delete process.env.TASK_OUTCOME_TEMPLATES
  else process.env.TASK_OUTCOME_TEMPLATES = saved.templates
  await rm(root, { recursive: true, force: true })
})

/** A repository whose first commit (the base) holds `a.txt` and `sub/b.txt`, and a later one that changes them. */
async function repository(): Promise<{ repo: string; base: string }> {
  const { dir, commits } = await buildRepo(
    [
      { subject: 'base', files: { 'a.txt': 'a at base\n', 'sub/b.txt': 'b at base\n' } },
      { subject: 'fix', files: { 'a.txt': 'a fixed\n', 'sub/b.txt': null } },
    ],
    'task-outcome-oracle-copy-repo-',
  )
  return { repo: dir, base: commits[0]! }
}

/**
 * A repository whose template this process checked: exported, then (once its entries are older than the seal's
 * racy margin, 1 s) checked again, so its seal vouches for it and `checkedTemplate` knows it.
 */
async function checkedRepository(): Promise<{ repo: string; base: string; template: string }> {
  const { repo, base } = await repository()
  await parentTemplate(repo, base)
  await new Promise((resolve) => setTimeout(resolve, 1_100))
  return { repo, base, template: await parentTemplate(repo, base) }
}

const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8')
const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  )

describe('oracleCopy', () => {
  test("a copy on disk: the parent commit's files in a folder of the label's name in the scratch folder, removed by dispose", async () => {
    const { repo, base } = await repository()
    const scratch = path.join(root, 'scratch-copy', 'deep')
    const copy = await oracleCopy(repo, base, scratch, 'oracle-x', 'copy')
    expect(copy.overlay).toBeUndefined()
    expect(copy.cwd).toBe(copy.dir)
    expect(path.dirname(copy.dir)).toBe(scratch)
    expect(path.basename(copy.dir)).toMatch(/^oracle-x-/)
    expect(copy.template).toBe(await parentTemplate(repo, base))
    expect(await read(copy.dir, 'a.txt')).toBe('a at base\n')
    expect(await read(copy.dir, 'sub/b.txt')).toBe('b at base\n')
    expect(await exists(path.join(copy.dir, '.git'))).toBe(true)
    await copy.dispose()
    expect(await exists(copy.dir)).toBe(false)
  })

  test.each([
    ['a template this process checked', true, false],
    ['the template the task guard watches', true, true],
    ['a template not yet checked', false, false],
  ])('an overlay over %s: its files at the mount point, writes kept off the template, all gone after dispose', async (_what, checked, watched) => {
    const { repo, base, template } = checked ? await checkedRepository() : { ...(await repository()), template: undefined }
    const scratch = path.join(root, `scratch-${Math.random().toString(36).slice(2)}`)
    const copy = await oracleCopy(repo, base, scratch, 'oracle', 'overlay', 64, watched ? template : undefined)
    try {
      expect(copy.overlay).toBeDefined()
      expect(copy.template).toBe(await parentTemplate(repo, base))
      expect(copy.overlay!.layers.lower).toEqual([copy.template])
      expect(copy.overlay!.home).toBeDefined()
      expect(copy.cwd).toBe(copy.overlay!.layers.target)
      expect(path.basename(copy.cwd)).toBe('tree')
      expect(path.basename(path.dirname(copy.cwd))).toMatch(/^oracle-/)
      expect(copy.dir).toBe(copy.overlay!.hostPath)
      expect(await read(copy.dir, 'a.txt')).toBe('a at base\n')
      await writeFile(path.join(copy.dir, 'a.txt'), 'written by the oracle\n')
      expect(await read(copy.template, 'a.txt')).toBe('a at base\n')
    } finally {
      await copy.dispose()
    }
    expect(await readdir(scratch)).toEqual([])
  })

  test('with TASK_OUTCOME_OVERLAY=off, a plain copy on a tmpfs of its own: no layer below, the files copied in', async () => {
    const { repo, base } = await repository()
    process.env.TASK_OUTCOME_OVERLAY = 'off'
    const scratch = path.join(root, 'scratch-plain')
    const copy = await oracleCopy(repo, base, scratch, 'oracle', 'overlay', 64)
    try {
      expect(copy.overlay!.layers.lower).toEqual([])
      expect(copy.overlay!.home).toBeDefined()
      expect(copy.dir).toBe(copy.overlay!.hostPath)
      expect(await read(copy.dir, 'sub/b.txt')).toBe('b at base\n')
      expect(await exists(path.join(copy.dir, '.git'))).toBe(true)
    } finally {
      await copy.dispose()
    }
    expect(await readdir(scratch)).toEqual([])
  })

  test('a template rewritten since this process checked it is exported again: the overlay shows the commit, not the rewrite', async () => {
    const { repo, base, template } = await checkedRepository()
    await writeFile(path.join(template, 'sub', 'b.txt'), 'rewritten\n')
    const written: string[] = []
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0)
    const scratch = path.join(root, 'scratch-rewritten')
    let copy: Awaited<ReturnType<typeof oracleCopy>> | undefined
    try {
      copy = await oracleCopy(repo, base, scratch, 'oracle', 'overlay', 64)
    } finally {
      spy.mockRestore()
    }
    try {
      expect(written.join('')).toMatch(/was modified .*exporting it again/)
      expect(await read(copy.dir, 'sub/b.txt')).toBe('b at base\n')
      expect(copy.overlay!.layers.lower).toEqual([copy.template])
    } finally {
      await copy.dispose()
    }
    expect(await readdir(scratch)).toEqual([])
  })

  test('where no overlay can be mounted, a plain copy instead, said once on stderr', async () => {
    process.env.TASK_OUTCOME_TEMPLATES = path.join(root, 'templates,with-a-comma')
    const written: string[] = []
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0)
    const scratch = path.join(root, 'scratch-fallback')
    const copies = []
    const warnings = () => written.filter((text) => text.includes('the oracle copies the template instead'))
    const checked = await checkedRepository()
    try {
      for (const [{ repo, base }, watched] of [
        [checked, checked.template],
        [checked, undefined],
        [await repository(), undefined],
      ] as const) {
        copies.push(await oracleCopy(repo, base, scratch, 'oracle', 'overlay', 64, watched))
        expect(warnings()).toHaveLength(1)
      }
    } finally {
      spy.mockRestore()
    }
    try {
      expect(warnings()).toHaveLength(1)
      expect(warnings()[0]).toMatch(/^task-outcome: overlay lower layer .* holds a comma.*; the oracle copies the template instead \(still sandboxed\)\n$/)
      for (const copy of copies) {
        expect(copy.overlay!.layers.lower).toEqual([])
        expect(await read(copy.dir, 'a.txt')).toBe('a at base\n')
      }
      // The failed overlay's folder went with it: one folder per copy.
      expect(await readdir(scratch)).toHaveLength(3)
    } finally {
      for (const copy of copies) await copy.dispose()
    }
  })

  test('the template the task guard watches is mounted without its seal walked: an entry rewritten since is left to the guard', async () => {
    const { repo, base, template } = await checkedRepository()
    await writeFile(path.join(template, 'sub', 'b.txt'), 'rewritten\n')
    const copy = await oracleCopy(repo, base, path.join(root, 'scratch-watched'), 'oracle', 'overlay', 64, template)
    try {
      expect(await read(copy.dir, 'sub/b.txt')).toBe('rewritten\n')
      expect(copy.template).toBe(template)
    } finally {
      await copy.dispose()
    }
  })

  test.each([
    ['watched', true],
    ['not watched', false],
  ])('an overlay of a checked template (%s) that cannot be made fails with its error', async (_what, watched) => {
    const { repo, base, template } = await checkedRepository()
    await expect(oracleCopy(repo, base, path.join(root, 'scratch-label'), 'no/such-folder', 'overlay', 64, watched ? template : undefined)).rejects.toThrow(/ENOENT/)
  })

  test('a plain copy that cannot be mounted fails with its error, and leaves nothing in the scratch folder', async () => {
    const { repo, base } = await repository()
    process.env.TASK_OUTCOME_OVERLAY = 'off'
    const scratch = path.join(root, 'scratch,with-a-comma')
    await expect(oracleCopy(repo, base, scratch, 'oracle', 'overlay', 64)).rejects.toThrow(/overlay upper layer .* holds a comma/)
    expect(await readdir(scratch)).toEqual([])
  })

  test('a checked template rewritten since, where no overlay can be mounted: exported again, and a plain copy of the commit', async () => {
    process.env.TASK_OUTCOME_TEMPLATES = path.join(root, 'templates,rewritten')
    const { repo, base, template } = await checkedRepository()
    await writeFile(path.join(template, 'sub', 'b.txt'), 'rewritten\n')
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    let copy: Awaited<ReturnType<typeof oracleCopy>> | undefined
    try {
      copy = await oracleCopy(repo, base, path.join(root, 'scratch-rewritten-fallback'), 'oracle', 'overlay', 64)
    } finally {
      spy.mockRestore()
    }
    try {
      expect(copy.overlay!.layers.lower).toEqual([])
      expect(await read(copy.dir, 'sub/b.txt')).toBe('b at base\n')
    } finally {
      await copy.dispose()
    }
  })
})
