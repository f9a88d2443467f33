import { lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { chmod, chown } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { HarnessFailure } from '../../src/errors.ts'
import { asSandboxIdentity, DEFAULT_SANDBOX_UID, handOver, reachable, sandboxIdentity, stagingDir } from '../../src/sandbox/identity.ts'

// Who a sandboxed process is on the host: as root (these tests, like CI, run as root), a uid no account has; the
// files it may write handed to it without following a link; the folders it could not reach by path found out.

const root = process.getuid?.() === 0
let dir: string
let savedUid: string | undefined
let savedTmp: string | undefined
const getuid = process.getuid

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'identity-test-'))
  savedUid = process.env.TASK_OUTCOME_SANDBOX_UID
  savedTmp = process.env.TMPDIR
})
afterEach(() => {
  process.getuid = getuid
  if (savedUid === undefined) delete process.env.TASK_OUTCOME_SANDBOX_UID
  else process.env.TASK_OUTCOME_SANDBOX_UID = savedUid
  if (savedTmp === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = savedTmp
  rmSync(dir, { recursive: true, force: true })
})

/** The harness seen as running under `uid` (the process's own uid cannot change under a test). */
function runningAs(uid: number): void {
  process.getuid = () => uid
}

describe('sandboxIdentity', () => {
  test('is none for a harness that is not root: its processes run as its own user', () => {
    runningAs(1000)
    process.env.TASK_OUTCOME_SANDBOX_UID = 'not a uid'
    expect(sandboxIdentity()).toBeNull()
  })

  test.each([
    ['unset', undefined, DEFAULT_SANDBOX_UID],
    ['empty', '', DEFAULT_SANDBOX_UID],
    ['1', '1', 1],
    ['12345', '12345', 12345],
    ['2^32 − 2, the largest uid', '4294967294', 4294967294],
  ])('as root, with TASK_OUTCOME_SANDBOX_UID %s, is that uid and its own gid', (_what, raw, uid) => {
    runningAs(0)
    if (raw === undefined) delete process.env.TASK_OUTCOME_SANDBOX_UID
    else process.env.TASK_OUTCOME_SANDBOX_UID = raw
    expect(sandboxIdentity()).toStrictEqual({ uid, gid: uid })
  })

  test('defaults to 2,000,000,000, a uid no host account has', () => {
    expect(DEFAULT_SANDBOX_UID).toBe(2_000_000_000)
  })

  test.each(['0', '-1', '1.5', 'abc', '4294967295', '4294967296', ' '])('as root, refuses TASK_OUTCOME_SANDBOX_UID=%j as no uid, for good', (raw) => {
    runningAs(0)
    process.env.TASK_OUTCOME_SANDBOX_UID = raw
    let thrown: unknown
    try {
      sandboxIdentity()
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(HarnessFailure)
    const failure = thrown as HarnessFailure
    expect(failure.reason).toBe('setup')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toBe(`TASK_OUTCOME_SANDBOX_UID=${raw} is not a uid: set it to an unused uid above 0 (default 2000000000)`)
  })
})

describe('asSandboxIdentity', () => {
  test('is no prefix without an identity', () => {
    expect(asSandboxIdentity(null)).toStrictEqual([])
  })

  test('starts the command as the uid and gid, in no group', () => {
    expect(asSandboxIdentity({ uid: 7, gid: 8 })).toStrictEqual(['setpriv', '--reuid=7', '--regid=8', '--clear-groups', '--'])
  })
})

describe.runIf(root)('handOver', () => {
  const identity = { uid: 2_000_000_123, gid: 2_000_000_124 }

  test('gives every root-owned entry of each folder to the identity, and leaves what another user owns', async () => {
    const one = path.join(dir, 'one')
    const two = path.join(dir, 'two')
    mkdirSync(path.join(one, 'deep'), { recursive: true })
    mkdirSync(two)
    writeFileSync(path.join(one, 'deep', 'file'), 'x')
    writeFileSync(path.join(two, 'other'), 'y')
    await chown(path.join(two, 'other'), 4242, 4242)
    handOver([one, two], identity)
    for (const entry of [one, path.join(one, 'deep'), path.join(one, 'deep', 'file'), two]) {
      expect([statSync(entry).uid, statSync(entry).gid]).toStrictEqual([identity.uid, identity.gid])
    }
    expect([statSync(path.join(two, 'other')).uid, statSync(path.join(two, 'other')).gid]).toStrictEqual([4242, 4242])
  })

  test('never follows a link planted in the tree: the link is handed over, its target stays root’s', () => {
    const tree = path.join(dir, 'tree')
    const host = path.join(dir, 'host-file')
    mkdirSync(tree)
    writeFileSync(host, 'secret')
    symlinkSync(host, path.join(tree, 'link'))
    handOver([tree], identity)
    expect(lstatSync(path.join(tree, 'link')).uid).toBe(identity.uid)
    expect(statSync(host).uid).toBe(0)
  })

  test('does nothing without an identity, or without folders', () => {
    const tree = path.join(dir, 'tree')
    mkdirSync(tree)
    handOver([tree], null)
    expect(statSync(tree).uid).toBe(0)
    expect(() => handOver([], identity)).not.toThrow()
  })

  test('takes the harness’s own identity when none is given', () => {
    runningAs(0)
    process.env.TASK_OUTCOME_SANDBOX_UID = String(identity.uid)
    const tree = path.join(dir, 'tree')
    mkdirSync(tree)
    handOver([tree])
    expect(statSync(tree).uid).toBe(identity.uid)
  })

  test('fails when chown does, the folder named', () => {
    expect(() => handOver([path.join(dir, 'missing')], identity)).toThrow(/missing/)
  })
})

describe.runIf(root)('reachable', () => {
  const identity = { uid: 2_000_000_321, gid: 2_000_000_321 }

  test('is true of a path that does not resolve (nothing there to hide)', () => {
    expect(reachable(path.join(dir, 'missing', 'file'), identity)).toBe(true)
  })

  test('is true when every folder above the target can be searched by others', async () => {
    mkdirSync(path.join(dir, 'a', 'b'), { recursive: true })
    writeFileSync(path.join(dir, 'a', 'b', 'file'), 'x')
    await chmod(dir, 0o711)
    await chmod(path.join(dir, 'a'), 0o701)
    await chmod(path.join(dir, 'a', 'b'), 0o755)
    expect(reachable(path.join(dir, 'a', 'b', 'file'), identity)).toBe(true)
  })

  test.each([
    ['the folder that holds it', 'b'],
    ['a folder further up', 'a'],
  ])('is false when %s cannot be searched by others', async (_what, closed) => {
    mkdirSync(path.join(dir, 'a', 'b'), { recursive: true })
    writeFileSync(path.join(dir, 'a', 'b', 'file'), 'x')
    await chmod(dir, 0o755)
    await chmod(path.join(dir, 'a'), 0o755)
    await chmod(path.join(dir, 'a', 'b'), 0o755)
    await chmod(closed === 'a' ? path.join(dir, 'a') : path.join(dir, 'a', 'b'), 0o770)
    expect(reachable(path.join(dir, 'a', 'b', 'file'), identity)).toBe(false)
  })

  test('is false under a 0700 temporary folder, as a test’s own is', () => {
    writeFileSync(path.join(dir, 'file'), 'x')
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(reachable(path.join(dir, 'file'), identity)).toBe(false)
  })

  test.each([
    ['searchable by its owner alone, when the identity owns it', 0o700, identity.uid, true],
    ['not searchable by its owner, the identity, though others may', 0o601, identity.uid, false],
    ['searchable by others, owned by someone else', 0o701, 4242, true],
    ['searchable by its owner alone, owned by someone else', 0o700, 4242, false],
  ])('looks at a folder %s', async (_what, mode, owner, expected) => {
    await chmod(dir, 0o755)
    const folder = path.join(dir, 'folder')
    mkdirSync(folder)
    writeFileSync(path.join(folder, 'file'), 'x')
    await chown(folder, owner, owner)
    await chmod(folder, mode)
    expect(reachable(path.join(folder, 'file'), identity)).toBe(expected)
  })

  test('judges the folders of the real path, not of a link to it', async () => {
    await chmod(dir, 0o755)
    const closed = path.join(dir, 'closed')
    mkdirSync(closed, { mode: 0o700 })
    writeFileSync(path.join(closed, 'file'), 'x')
    await chmod(closed, 0o700)
    symlinkSync(path.join(closed, 'file'), path.join(dir, 'link'))
    expect(reachable(path.join(dir, 'link'), identity)).toBe(false)
  })
})

describe.runIf(root)('stagingDir', () => {
  test.each([
    [
      'a link to a folder (planted to redirect the binds)',
      (at: string) => {
        mkdirSync(`${at}-target`, { mode: 0o755 })
        symlinkSync(`${at}-target`, at)
      },
    ],
    ['a folder others can write', (at: string) => mkdirSync(at, { mode: 0o777 })],
    ['a folder its group can write', (at: string) => mkdirSync(at, { mode: 0o775 })],
    ['a folder another user owns', (at: string) => mkdirSync(at)],
  ])('refuses a task-outcome-stage that is %s, naming it', async (what, make) => {
    process.env.TMPDIR = dir
    const at = path.join(dir, 'task-outcome-stage')
    make(at)
    if (what.endsWith('can write')) await chmod(at, what.includes('others') ? 0o777 : 0o775)
    if (what.includes('another user')) await chown(at, 4242, 4242)
    let thrown: unknown
    try {
      stagingDir()
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(HarnessFailure)
    expect((thrown as HarnessFailure).reason).toBe('setup')
    expect((thrown as HarnessFailure).retryable).toBe(false)
    expect((thrown as HarnessFailure).message).toBe(`${at} is not a root-owned folder others cannot write: remove it (the harness makes it)`)
  })

  test('makes a root-owned folder others can search under the temp folder, once for the process', () => {
    process.env.TMPDIR = dir
    const made = stagingDir()
    expect(made).toBe(path.join(dir, 'task-outcome-stage'))
    const info = statSync(made)
    expect(info.isDirectory()).toBe(true)
    expect(info.uid).toBe(0)
    expect(info.mode & 0o777).toBe(0o755)
    const other = mkdtempSync(path.join(os.tmpdir(), 'identity-other-'))
    process.env.TMPDIR = other
    try {
      expect(stagingDir()).toBe(made)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})
