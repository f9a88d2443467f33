import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { SESSION_VARIABLE, startDaemon } from '../sandbox/index.ts'
import { defaultWorkspaceRoot } from '../workspace/index.ts'

/**
 * One Vitest invocation that runs experiments: a tag every process of it
 * carries (`TASK_OUTCOME_SESSION`, inherited by the workers, added to every
 * agent's environment), a workspace folder of its own under the workspace
 * root (`vitest-<pid>-<id>/`, with `owner.json` naming its main process), and
 * a watchdog that kills what is left and removes the folder the moment the
 * main process is gone, SIGKILL included. The main process starts it; the
 * workers find it in their environment.
 */
export interface Session {
  readonly id: string
  /** Where this invocation's workspaces, budget reservations and stop notes live. */
  readonly dir: string
}

/** The variable naming the session's folder (the workers read it). */
export const SESSION_DIR_VARIABLE = 'TASK_OUTCOME_SESSION_DIR'

const WATCHDOG = path.resolve(import.meta.dirname, 'watchdog.mjs')
const SESSION_PREFIX = 'vitest-'

/** What `owner.json` in a session folder says. */
interface Owner {
  readonly pid: number
  /** The main process's start time in clock ticks since boot (/proc/<pid>/stat field 22), so a reused pid is not mistaken for it. */
  readonly start: string
  readonly startedAt: string
}

/** A process's start time (Linux), or '' where /proc is unavailable. */
function processStart(pid: number): string | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? ''
  } catch {
    try {
      process.kill(pid, 0)
      return ''
    } catch {
      return null
    }
  }
}

/** The session this process belongs to (set in the main process by `startSession`, inherited by workers). */
export function currentSession(): Session | undefined {
  const id = process.env[SESSION_VARIABLE]
  const dir = process.env[SESSION_DIR_VARIABLE]
  return id === undefined || dir === undefined || id === '' || dir === '' ? undefined : { id, dir }
}

/**
 * Removes the session folders of invocations whose main process is gone (a
 * run killed before its watchdog could clean up). Folders of live invocations
 * (other experiments on the same machine) and folders this code did not make
 * are left alone. Returns the folders removed.
 */
export function removeStaleSessions(root: string = defaultWorkspaceRoot()): string[] {
  let entries: string[]
  try {
    entries = readdirSync(root)
  } catch {
    return []
  }
  const removed: string[] = []
  for (const entry of entries) {
    if (!entry.startsWith(SESSION_PREFIX)) continue
    const dir = path.join(root, entry)
    let owner: Owner
    try {
      owner = JSON.parse(readFileSync(path.join(dir, 'owner.json'), 'utf8')) as Owner
    } catch {
      continue
    }
    const start = processStart(owner.pid)
    if (start !== null && (start === '' || owner.start === '' || start === owner.start)) continue
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
      removed.push(dir)
    } catch {
      // Still mounted or in use: left for the next start.
    }
  }
  return removed
}

/**
 * Starts this invocation's session in Vitest's main process (once; later
 * calls return it): removes stale sessions, makes the folder, exports the tag
 * to the environment the workers inherit and starts the watchdog.
 */
export function startSession(): { session: Session; removedStale: string[] } {
  const existing = currentSession()
  if (existing !== undefined && process.env.TASK_OUTCOME_SESSION_PID === String(process.pid)) return { session: existing, removedStale: [] }
  const root = defaultWorkspaceRoot()
  const removedStale = removeStaleSessions(root)
  const id = randomUUID()
  const dir = path.join(root, `${SESSION_PREFIX}${process.pid}-${id.slice(0, 8)}`)
  mkdirSync(dir, { recursive: true })
  const owner: Owner = { pid: process.pid, start: processStart(process.pid) ?? '', startedAt: new Date().toISOString() }
  writeFileSync(path.join(dir, 'owner.json'), `${JSON.stringify(owner)}\n`)
  process.env[SESSION_VARIABLE] = id
  process.env[SESSION_DIR_VARIABLE] = dir
  process.env.TASK_OUTCOME_SESSION_PID = String(process.pid)
  const env = { ...process.env }
  delete env[SESSION_VARIABLE]
  delete env[SESSION_DIR_VARIABLE]
  delete env.TASK_OUTCOME_SESSION_PID
  startDaemon(process.execPath, [WATCHDOG, String(process.pid), owner.start, SESSION_VARIABLE, id, dir], env)
  return { session: { id, dir }, removedStale }
}
