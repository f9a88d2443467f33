import { readdirSync, readFileSync } from 'node:fs'
import { RUN_TAG_VARIABLE } from './tags.ts'

/**
 * A run's process tree as Linux shows it: the members of its process group
 * and every process whose environment carries the run's tag (a descendant
 * that left the group with `setsid`, as Claude Code's hooks do). Only a
 * process that wipes its environment escapes the tag.
 */

interface ProcessInfo {
  readonly pid: number
  readonly pgid: number
  readonly zombie: boolean
}

/** Where Linux shows its processes; a parameter so tests can lay out a table by hand, or name one that is missing. */
const PROC = '/proc'

/** Linux: every process, from `proc`. Null where it is unavailable. */
function listProcesses(proc: string): ProcessInfo[] | null {
  let entries: string[]
  try {
    entries = readdirSync(proc)
  } catch {
    return null
  }
  // Stryker disable next-line ArrayDeclaration: a stray non-process entry matches no group and reads no environment.
  const processes: ProcessInfo[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`${proc}/${entry}/stat`, 'utf8')
      // Fields after the command name (which may hold spaces and parentheses): state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      processes.push({ pid: Number(entry), pgid: Number(fields[2]), zombie: fields[0] === 'Z' || fields[0] === 'X' })
    } catch {
      // The process ended while we looked.
    }
  }
  return processes
}

// A mutant that widens which processes are a run's signals every process of the machine (as root, the mutation
// run's own shell and everything beside it), so these lines are not mutated (docs/mutation.md, tree.ts).
// Stryker disable all
function carriesTag(proc: string, pid: number, tag: string): boolean {
  try {
    return readFileSync(`${proc}/${pid}/environ`, 'latin1').split('\0').includes(`${RUN_TAG_VARIABLE}=${tag}`)
  } catch {
    return false
  }
}

/** A live process of the run: in its group or carrying its tag, never a zombie nor the harness itself. */
function isRunProcess(info: ProcessInfo, pgid: number, tag: string | undefined, proc: string): boolean {
  return !info.zombie && info.pid !== process.pid && (info.pgid === pgid || (tag !== undefined && carriesTag(proc, info.pid, tag)))
}
// Stryker restore all

/**
 * The live (non-zombie) processes of a run: members of its process group and,
 * given its tag, any process whose environment carries it. Zombies do not
 * count (a container's init may never reap them, and they hold nothing).
 * Null where /proc (`proc`: tests lay one out by hand) is unavailable.
 */
export function liveRunProcesses(pgid: number, tag?: string, proc: string = PROC): number[] | null {
  const processes = listProcesses(proc)
  if (processes === null) return null
  // Stryker disable next-line all: a wider filter signals every process of the machine (see carriesTag).
  const live = processes.filter((info) => isRunProcess(info, pgid, tag, proc))
  return live.map((info) => info.pid)
}

/**
 * True while any process of group `pgid` (or, given `tag`, carrying the run's tag) is alive. Where /proc is
 * unavailable, signal 0 to the group tells (the tag unread).
 */
export function processGroupAlive(pgid: number, tag?: string, proc: string = PROC): boolean {
  const live = liveRunProcesses(pgid, tag, proc)
  if (live !== null) return live.length > 0
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/** Sends `signal` to group `pgid` and to every live process carrying `tag` (found in `proc`, as above). */
export function signalRun(pgid: number, tag: string | undefined, signal: NodeJS.Signals, proc: string = PROC): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // ESRCH: the group is already gone.
  }
  for (const pid of liveRunProcesses(pgid, tag, proc) ?? []) {
    try {
      process.kill(pid, signal)
    } catch {
      // Gone meanwhile.
    }
  }
}
