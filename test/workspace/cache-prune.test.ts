import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { listCache } from '../../src/workspace/cache.ts'
import { ABANDONED_BUILD_MS, planPrune, prune } from '../../src/workspace/cache-prune.ts'
import { USES_FOLDER } from '../../src/workspace/cache-uses.ts'

// The pruning rules on a cache laid out by hand (folders, entry.json, use markers with set times): which entries
// each criterion selects, and what a removal leaves. The real prepares and the CLI are in cache.test.ts.
const DAY = 24 * 3600 * 1000
const hex = (digit: string) => digit.repeat(32)

let root: string
let scratch: string
beforeEach(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'cache-prune-'))
  root = path.join(scratch, 'cache')
  await mkdir(path.join(root, USES_FOLDER), { recursive: true })
})
afterEach(() => rm(scratch, { recursive: true, force: true }))

/** An entry folder with one file, last used `daysAgo` days ago (its use marker's time). */
async function entry(name: string, daysAgo: number, files: Record<string, string> = { 'file.txt': 'x\n' }): Promise<void> {
  await mkdir(path.join(root, name), { recursive: true })
  for (const [file, content] of Object.entries(files)) await writeFile(path.join(root, name, file), content)
  const marker = path.join(root, USES_FOLDER, name)
  await writeFile(marker, '')
  const when = new Date(Date.now() - daysAgo * DAY)
  await utimes(marker, when, when)
}

const recipe = (content: string) => ({ 'entry.json': JSON.stringify({ format: 1, prepare: 'npm ci', mount: 'node_modules', inputs: {}, content }) })

describe('cache prune', () => {
  it('--older-than removes what was not used for that long; a stored folder goes only once no kept recipe names it', async () => {
    await entry(`deps-${hex('1')}`, 40, recipe(`content-${hex('a')}`))
    await entry(`deps-${hex('2')}`, 2, recipe(`content-${hex('a')}`))
    await entry(`content-${hex('a')}`, 40)
    await entry(`deps-${hex('3')}`, 40, recipe(`content-${hex('b')}`))
    await entry(`content-${hex('b')}`, 40)
    await entry(hex('c'), 2)
    const listing = await listCache(root)
    const plan = planPrune(listing, { olderThanMs: 30 * DAY, nowMs: Date.now() })
    expect(plan.remove.map((e) => e.name).sort()).toEqual([`content-${hex('b')}`, `deps-${hex('1')}`, `deps-${hex('3')}`])
    const result = await prune(root, listing, plan, { dryRun: false })
    expect(result.removed).toHaveLength(3)
    expect((await readdir(root)).sort()).toEqual([USES_FOLDER, hex('c'), `content-${hex('a')}`, `deps-${hex('2')}`].sort())
  })

  it('--tasks and --older-than together remove only entries that are both unused and old', async () => {
    await entry(hex('1'), 40)
    await entry(hex('2'), 40)
    await entry(hex('3'), 1)
    const listing = await listCache(root)
    const usedByTasks = new Map([[hex('1'), ['001-a']]])
    const plan = planPrune(listing, { usedByTasks, olderThanMs: 30 * DAY, nowMs: Date.now() })
    expect(plan.remove.map((e) => e.name)).toEqual([hex('2')])
  })

  it('removes leftovers of an interrupted removal and builds abandoned for a day, but not a build under way, nor what it does not know', async () => {
    await entry('.removing-x', 0)
    await entry(`.building-deps-${hex('1')}-old`, ABANDONED_BUILD_MS / DAY + 1)
    await entry(`.building-deps-${hex('2')}-now`, 0)
    await entry('something-else', 400)
    const listing = await listCache(root)
    const plan = planPrune(listing, { olderThanMs: 0, nowMs: Date.now() })
    expect(plan.remove.map((e) => e.name).sort()).toEqual([`.building-deps-${hex('1')}-old`, '.removing-x'])
    expect(listing.entries.find((e) => e.name === 'something-else')?.kind).toBe('unknown')
  })

  it('a link planted among the use markers or the entries is removed as a link, its target kept', async () => {
    const host = path.join(scratch, 'host.txt')
    await writeFile(host, 'keep\n')
    await entry(hex('1'), 40, {})
    await symlink(host, path.join(root, hex('1'), 'link'))
    await rm(path.join(root, USES_FOLDER, hex('1')))
    await symlink(host, path.join(root, USES_FOLDER, hex('1')))
    const listing = await listCache(root)
    await prune(root, listing, planPrune(listing, { olderThanMs: 0, nowMs: Date.now() + DAY }), { dryRun: false })
    expect(await readdir(root)).toEqual([USES_FOLDER])
    expect(await readdir(path.join(root, USES_FOLDER))).toEqual([])
    expect(await readFile(host, 'utf8')).toBe('keep\n')
  })
})
