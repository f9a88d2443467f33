import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { liveRunProcesses, processGroupAlive, signalRun } from '../../../src/sandbox/process/tree.ts'
import { alive } from '../../helpers/alive.ts'
import { waitFor } from '../../helpers/wait-for.ts'

// A run's process tree as Linux shows it, read from real processes: the members of its group, a descendant that
// left the group but carries the run's tag, and zombies, which hold nothing and do not count.

let dir: string
const started: ChildProcess[] = []
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tree-test-'))
})
afterEach(async () => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  await rm(dir, { recursive: true, force: true })
})

/** Starts `script` (bash) as the leader of a group of its own; resolves with its pid once `file` is written. */
async function group(script: string, file: string, env: Record<string, string> = {}): Promise<number> {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } })
  started.push(child)
  // Each script writes its file whole, by a rename.
  await waitFor(() => existsSync(file), 'the group to start')
  return child.pid!
}
const pids = (file: string) => readFileSync(file, 'utf8').trim().split(/\s+/).map(Number)

describe('liveRunProcesses', () => {
  test('lists the members of the group, the leader and its children, and nothing of another group', async () => {
    const file = path.join(dir, 'pids')
    const leader = await group(`sleep 60 & echo $! > ${file}.tmp; mv ${file}.tmp ${file}; wait`, file)
    const [child] = pids(file)
    const other = await group(`echo $$ > ${file}-other.tmp; mv ${file}-other.tmp ${file}-other; exec sleep 60`, `${file}-other`)
    expect(liveRunProcesses(leader)?.sort()).toStrictEqual([leader, child!].sort())
    expect(liveRunProcesses(leader)).not.toContain(other)
    expect(processGroupAlive(leader)).toBe(true)
  })

  test('finds a process that left the group with setsid by the run’s tag, and only with the tag', async () => {
    const file = path.join(dir, 'escaped')
    const tag = `tree-test-${process.pid}`
    const leader = await group(`setsid bash -c 'echo $$ > ${file}.tmp; mv ${file}.tmp ${file}; exec sleep 60' & wait`, file, { TASK_OUTCOME_RUN_TAG: tag })
    const [escaped] = pids(file)
    await waitFor(() => readFileSync(`/proc/${escaped}/stat`, 'utf8').includes('sleep'), 'the escaped process to exec')
    expect(liveRunProcesses(leader, tag)).toContain(escaped)
    expect(liveRunProcesses(leader)).not.toContain(escaped)
    expect(liveRunProcesses(leader, `${tag}-other`)).not.toContain(escaped)
    // The leader carries the tag too: every process of the run does.
    expect(liveRunProcesses(-1, tag)?.sort()).toStrictEqual([leader, escaped!].sort())
  })

  test('leaves out zombies: a group whose only member is a zombie is not alive', async () => {
    const file = path.join(dir, 'zombie')
    // The leader execs a process that never reaps its child, which exits after the exec.
    const leader = await group(`bash -c 'sleep 0.3' & echo $! > ${file}.tmp; mv ${file}.tmp ${file}; exec sleep 60`, file)
    const [zombie] = pids(file)
    await waitFor(() => !alive(zombie!), 'the child to become a zombie')
    expect(existsSync(`/proc/${zombie}`)).toBe(true)
    expect(liveRunProcesses(leader)).toStrictEqual([leader])
    process.kill(leader, 'SIGKILL')
    await waitFor(() => !alive(leader), 'the leader to die')
    expect(liveRunProcesses(leader)).toStrictEqual([])
    expect(processGroupAlive(leader)).toBe(false)
  })

  test('never lists the harness itself, though it carries the tag', () => {
    process.env.TASK_OUTCOME_RUN_TAG = 'tree-test-self'
    try {
      expect(liveRunProcesses(process.pid, 'tree-test-self')).not.toContain(process.pid)
    } finally {
      delete process.env.TASK_OUTCOME_RUN_TAG
    }
  })

  test('reads a command name holding spaces and parentheses', async () => {
    const file = path.join(dir, 'odd')
    const leader = await group(`exec -a 'odd (name) 1 2' bash -c 'echo $$ > ${file}.tmp; mv ${file}.tmp ${file}; exec -a "x) y (z" sleep 60'`, file)
    await waitFor(() => readFileSync(`/proc/${leader}/stat`, 'utf8').includes('sleep'), 'the leader to exec')
    expect(liveRunProcesses(leader)).toStrictEqual([leader])
  })
})

/**
 * A process table laid out by hand in `dir`/proc: each entry a folder with the `stat` line Linux writes (pid, the
 * command name in parentheses, the state, the parent, the group) and, given, an `environ`.
 */
async function table(entries: Record<string, { state?: string; pgid: number; name?: string; environ?: string[] } | 'no stat'>): Promise<string> {
  const proc = path.join(dir, 'proc')
  for (const [entry, info] of Object.entries(entries)) {
    await mkdir(path.join(proc, entry), { recursive: true })
    if (info === 'no stat') continue
    await writeFile(path.join(proc, entry, 'stat'), `${entry} (${info.name ?? 'sh'}) ${info.state ?? 'S'} 1 ${info.pgid} ${info.pgid} 0 -1 4194560\n`)
    if (info.environ !== undefined) await writeFile(path.join(proc, entry, 'environ'), `${info.environ.join('\0')}\0`)
  }
  return proc
}

describe('reading the process table', () => {
  test("counts only the numbered entries: /proc's self links and other folders are not processes", async () => {
    const proc = await table({ '101': { pgid: 7 }, self: { pgid: 7 }, 'thread-self': { pgid: 7 }, x102: { pgid: 7 }, '103x': { pgid: 7 }, '1 04': { pgid: 7 } })
    expect(liveRunProcesses(7, undefined, proc)).toStrictEqual([101])
  })

  test('a zombie (Z) or a dead process (X) is no member; one in any other state is', async () => {
    const proc = await table({
      '201': { state: 'Z', pgid: 9 },
      '202': { state: 'X', pgid: 9 },
      '203': { state: 'D', pgid: 9 },
      '204': { state: 'T', pgid: 9 },
      '205': { state: 'R', pgid: 10 },
    })
    expect(liveRunProcesses(9, undefined, proc)?.sort()).toStrictEqual([203, 204])
    expect(processGroupAlive(9, undefined, proc)).toBe(true)
    expect(processGroupAlive(11, undefined, proc)).toBe(false)
  })

  test('reads the group after the last parenthesis of the command name, and skips an entry gone while it looked', async () => {
    const proc = await table({ '301': { pgid: 12, name: 'a) 9 9 (b' }, '302': 'no stat', '303': { pgid: 13, name: ')' } })
    expect(liveRunProcesses(12, undefined, proc)).toStrictEqual([301])
    expect(liveRunProcesses(13, undefined, proc)).toStrictEqual([303])
  })

  test("a tag is read from each process's environment in the same table", async () => {
    const proc = await table({
      '401': { pgid: 20, environ: ['PATH=/bin', 'TASK_OUTCOME_RUN_TAG=run-a'] },
      '402': { pgid: 21, environ: ['TASK_OUTCOME_RUN_TAG=run-b'] },
      '403': { pgid: 22 },
    })
    expect(liveRunProcesses(99, 'run-a', proc)).toStrictEqual([401])
    expect(liveRunProcesses(22, 'run-a', proc)?.sort()).toStrictEqual([401, 403])
  })

  test('without a process table there is no list, and a group is alive while signal 0 reaches it', async () => {
    const missing = path.join(dir, 'no-proc')
    expect(liveRunProcesses(1, undefined, missing)).toBeNull()
    const file = path.join(dir, 'fallback')
    const leader = await group(`echo $$ > ${file}.tmp; mv ${file}.tmp ${file}; exec sleep 60`, file)
    expect(processGroupAlive(leader, undefined, missing)).toBe(true)
    process.kill(leader, 'SIGKILL')
    await waitFor(() => !processGroupAlive(leader, undefined, missing), 'the group to be gone (its leader reaped)')
    expect(processGroupAlive(2 ** 22 + 54321, undefined, missing)).toBe(false)
  })

  test('without a process table, a group whose leader has exited is alive while a member is, and the group is signalled whole', async () => {
    const missing = path.join(dir, 'no-proc')
    const file = path.join(dir, 'orphaned')
    const leader = await group(`sleep 60 & echo $! > ${file}.tmp; mv ${file}.tmp ${file}; exit 0`, file)
    const [member] = pids(file)
    await waitFor(() => !existsSync(`/proc/${leader}`), 'the leader to exit and be reaped')
    expect(processGroupAlive(leader, undefined, missing)).toBe(true)
    signalRun(leader, undefined, 'SIGKILL', missing)
    // Dead, though signal 0 may still reach it as a zombie until the machine's init reaps it (what /proc tells apart).
    await waitFor(() => !alive(member!), 'the member to be killed through its group')
  })
})

describe('processGroupAlive', () => {
  test('is false for a group that never existed', () => {
    expect(processGroupAlive(2 ** 22 + 12345)).toBe(false)
  })
})

describe('signalRun', () => {
  test('signals the group and every process carrying the tag', async () => {
    const file = path.join(dir, 'signalled')
    const tag = `tree-signal-${process.pid}`
    const leader = await group(`setsid bash -c 'echo $$ > ${file}.tmp; mv ${file}.tmp ${file}; exec sleep 60' & sleep 60 & wait`, file, { TASK_OUTCOME_RUN_TAG: tag })
    const [escaped] = pids(file)
    signalRun(leader, tag, 'SIGKILL')
    // The leader's own `sleep` may still be dying when the leader and the escaped process are gone (a loaded machine).
    await waitFor(() => !alive(escaped!) && !alive(leader) && !processGroupAlive(leader, tag), 'the run to die')
  })

  test('signals only the group without a tag, and a gone group is no error', async () => {
    const file = path.join(dir, 'untagged')
    const tag = `tree-untagged-${process.pid}`
    const leader = await group(`setsid bash -c 'echo $$ > ${file}.tmp; mv ${file}.tmp ${file}; exec sleep 60' & wait`, file, { TASK_OUTCOME_RUN_TAG: tag })
    const [escaped] = pids(file)
    signalRun(leader, undefined, 'SIGKILL')
    await waitFor(() => !alive(leader), 'the leader to die')
    expect(alive(escaped!)).toBe(true)
    expect(() => signalRun(leader, undefined, 'SIGKILL')).not.toThrow()
    process.kill(escaped!, 'SIGKILL')
  })
})
