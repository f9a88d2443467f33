import { readdirSync, readFileSync } from 'node:fs'
import { chmod, lstat, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { RACY_MARGIN_MS, StatSeal } from '../../src/workspace/stat-seal.ts'
import { eventLoopTurns } from '../helpers/event-loop.ts'

// A real folder on the system temp folder's file system; its files are made more than the racy margin before the
// seal is taken (the seal does not trust an entry written a moment ago). The seals here take a margin of 100 ms,
// far above a clock tick still, so each test waits 0.2 s, not the production margin's second. A seal expected racy
// takes the production margin (a loaded machine may take more than 100 ms from the write to the seal).

/** The racy margin of this file's seals. */
const MARGIN_MS = 100

let dir: string

async function oldFolder(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'stat-seal-'))
  await mkdir(path.join(folder, 'src', 'deep'), { recursive: true })
  await mkdir(path.join(folder, '.git'))
  await writeFile(path.join(folder, 'src', 'a.js'), 'export const a = 1\n')
  await writeFile(path.join(folder, 'src', 'deep', 'b.js'), 'export const b = 2\n')
  await writeFile(path.join(folder, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  await new Promise((resolve) => setTimeout(resolve, 2 * MARGIN_MS))
  return folder
}

/** `touch -d` wants a time as `@seconds.nanoseconds`. */
function touchTime(ns: bigint): string {
  return `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`
}

/** Writes `content` (of the same size) over `file` and puts its mtime back to the nanosecond, as a careful tamperer would. */
async function rewriteKeepingTimes(file: string, content: string): Promise<void> {
  const before = await lstat(file, { bigint: true })
  expect(BigInt(Buffer.byteLength(content))).toBe(before.size)
  await writeFile(file, content)
  await execa('touch', ['-m', '-d', touchTime(before.mtimeNs), file])
  const after = await lstat(file, { bigint: true })
  expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs])
  expect(after.ctimeNs).not.toBe(before.ctimeNs)
}

beforeEach(async () => {
  dir = await oldFolder()
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('a folder seal', () => {
  test('covers every entry, folders, .git and the folder itself included, and finds nothing moved when nothing was written', async () => {
    const seal = await StatSeal.take(dir, MARGIN_MS)
    expect(seal.size).toBe(7)
    expect(seal.racy).toBe(false)
    expect(await seal.firstMoved()).toBeUndefined()
  })

  test('finds a file rewritten with its size and mtime put back (its change time moved)', async () => {
    const seal = await StatSeal.take(dir, MARGIN_MS)
    await rewriteKeepingTimes(path.join(dir, 'src', 'deep', 'b.js'), 'export const b = 3\n')
    expect(await seal.firstMoved()).toBe('src/deep/b.js')
  })

  test('finds a file added, by its folder', async () => {
    const seal = await StatSeal.take(dir, MARGIN_MS)
    await writeFile(path.join(dir, 'src', 'deep', 'c.js'), 'new\n')
    expect(await seal.firstMoved()).toBe('src/deep')
  })

  test('finds a file removed', async () => {
    const seal = await StatSeal.take(dir, MARGIN_MS)
    await rm(path.join(dir, 'src', 'a.js'))
    expect(await seal.firstMoved()).toBe('src')
  })

  test('finds a file replaced by another with the same bytes and times (a new inode)', async () => {
    const file = path.join(dir, 'src', 'a.js')
    const before = await lstat(file, { bigint: true })
    const seal = await StatSeal.take(dir, MARGIN_MS)
    await writeFile(`${file}.new`, 'export const a = 1\n')
    await execa('touch', ['-m', '-d', touchTime(before.mtimeNs), `${file}.new`])
    await rename(`${file}.new`, file)
    expect(await seal.firstMoved()).toBe('src')
    expect((await lstat(file)).ino).not.toBe(before.ino)
  })

  test('finds a mode change, and a write inside .git', async () => {
    const seal = await StatSeal.take(dir, MARGIN_MS)
    await chmod(path.join(dir, 'src', 'a.js'), 0o755)
    expect(await seal.firstMoved()).toBe('src/a.js')
    const other = await StatSeal.take(dir, MARGIN_MS)
    await rewriteKeepingTimes(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/evil\n')
    expect(await other.firstMoved()).toBe('.git/HEAD')
  })

  test('finds the whole folder replaced, or gone', async () => {
    const seal = await StatSeal.take(dir, MARGIN_MS)
    await rename(dir, `${dir}.old`)
    await mkdir(dir)
    expect(await seal.firstMoved()).toBe('')
    await rm(dir, { recursive: true, force: true })
    expect(await seal.firstMoved()).toBe('')
    await rm(`${dir}.old`, { recursive: true, force: true })
  })

  test('tells whether the folder itself moved: not for a write inside it; for a mode change, a replacement, or its removal', async () => {
    const seal = await StatSeal.take(dir, MARGIN_MS)
    expect(seal.folderMoved()).toBe(false)
    await rewriteKeepingTimes(path.join(dir, 'src', 'a.js'), 'export const a = 2\n')
    expect(seal.folderMoved()).toBe(false)
    await chmod(dir, 0o700)
    expect(seal.folderMoved()).toBe(true)
    const other = await StatSeal.take(dir, MARGIN_MS)
    await rename(dir, `${dir}.old`)
    await mkdir(dir, { mode: 0o700 })
    expect(other.folderMoved()).toBe(true)
    await rm(dir, { recursive: true, force: true })
    expect(other.folderMoved()).toBe(true)
    await rm(`${dir}.old`, { recursive: true, force: true })
  })

  test('taken right after a write is racy (its ctime is too close to prove anything later)', async () => {
    // The folder aged past the production margin first, so only the file written now can make the seal racy.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS))
    expect((await StatSeal.take(dir)).racy).toBe(false)
    await writeFile(path.join(dir, 'src', 'deep', 'b.js'), 'export const b = 4\n')
    expect((await StatSeal.take(dir)).racy).toBe(true)
  })

  test('lists what a later seal holds that is new or moved, with its change time', async () => {
    const seal = await StatSeal.take(dir, MARGIN_MS)
    await writeFile(path.join(dir, 'src', 'new.js'), 'new\n')
    const later = await StatSeal.take(dir, MARGIN_MS)
    const moved = seal.movedIn(later)
    expect(moved.map((entry) => entry.path).sort()).toEqual(['src', 'src/new.js'])
    expect(moved.find((entry) => entry.path === 'src/new.js')!.ctimeMs).toBe((await lstat(path.join(dir, 'src', 'new.js'))).ctimeMs)
  })

  test(`takes RACY_MARGIN_MS (${RACY_MARGIN_MS} ms) unless told: a folder written 0.2 s before is racy to it`, async () => {
    expect(RACY_MARGIN_MS).toBeGreaterThan(2 * MARGIN_MS)
    expect((await StatSeal.take(dir)).racy).toBe(true)
    expect((await StatSeal.take(dir, MARGIN_MS)).racy).toBe(false)
  })

  test('lets the event loop turn once per 1,000 entries while it seals and while it checks, no more and no less', async () => {
    const big = await mkdtemp(path.join(os.tmpdir(), 'stat-seal-big-'))
    try {
      await Promise.all(Array.from({ length: 2_499 }, (_, i) => writeFile(path.join(big, `f${i}`), '')))
      let seal: StatSeal | undefined
      // 2,500 entries (the folder and its files): a turn after the 1,000th and the 2,000th.
      expect(await eventLoopTurns(async () => (seal = await StatSeal.take(big, MARGIN_MS)))).toBe(2)
      expect(seal!.size).toBe(2_500)
      expect(await eventLoopTurns(() => seal!.firstMoved())).toBe(2)
    } finally {
      await rm(big, { recursive: true, force: true })
    }
  })
})

// A seal of 4,000 entries or more checks its later half on a helper thread (stat-helper.ts) while the caller checks
// the earlier half: what moved in either half is found, and the first in the seal's order is named.
describe('a large folder seal (its later half checked on the helper thread)', () => {
  let large: string
  /** The entries as the seal lists them (the folder itself first), so a test can write into either half. */
  let listed: string[]

  // Made once (4,500 files): each test takes its own seal after the writes of the tests before it are older than the margin.
  beforeAll(async () => {
    large = await mkdtemp(path.join(os.tmpdir(), 'stat-seal-large-'))
    for (let folder = 0; folder < 10; folder++) {
      await mkdir(path.join(large, `m${folder}`))
      await Promise.all(Array.from({ length: 450 }, (_, i) => writeFile(path.join(large, `m${folder}`, `f${i}.js`), `export const f = ${i}\n`)))
    }
    listed = ['', ...readdirSync(large, { recursive: true, withFileTypes: true }).map((entry) => path.relative(large, path.join(entry.parentPath, entry.name)))]
    expect(listed.length).toBeGreaterThanOrEqual(4_000)
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100))
  })

  afterAll(async () => {
    await rm(large, { recursive: true, force: true })
  })

  const lastFile = () => listed.findLast((entry) => entry.endsWith('.js'))!

  test('finds nothing moved when nothing was written, twice', async () => {
    const seal = await StatSeal.take(large)
    expect(seal.size).toBe(listed.length)
    expect(await seal.firstMoved()).toBeUndefined()
    expect(await seal.firstMoved()).toBeUndefined()
  })

  test('finds a file of the later half rewritten with its size and mtime put back', async () => {
    const seal = await StatSeal.take(large)
    expect(await seal.firstMoved()).toBeUndefined()
    const file = lastFile()
    expect(listed.indexOf(file)).toBeGreaterThan(listed.length / 2)
    await rewriteKeepingTimes(path.join(large, file), readFileSync(path.join(large, file), 'utf8').replace('= ', '=\t'))
    expect(await seal.firstMoved()).toBe(file)
  })

  test('finds a mode change in the later half, and names the earlier of two moves', async () => {
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100))
    const seal = await StatSeal.take(large)
    const file = listed.filter((entry) => entry.endsWith('.js')).at(-2)!
    expect(listed.indexOf(file)).toBeGreaterThan(listed.length / 2)
    await chmod(path.join(large, file), 0o755)
    expect(await seal.firstMoved()).toBe(file)
    const early = listed.find((entry) => entry.endsWith('.js'))!
    expect(listed.indexOf(early)).toBeLessThan(listed.length / 2)
    await chmod(path.join(large, early), 0o755)
    expect(await seal.firstMoved()).toBe(early)
  })
})
