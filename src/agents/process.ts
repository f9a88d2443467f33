import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { execa } from 'execa'
import { HarnessFailure } from '../errors.ts'
import type { RunSandbox } from '../sandbox/index.ts'

/**
 * Runs an agent CLI the way every CLI adapter needs it run: in a process group
 * of its own, so a timeout or an abort kills the agent *and* everything it
 * started (shells, test runners, language servers), never only the leader.
 *
 * A process group is not enough on its own: Claude Code starts its hooks and
 * tool shells with `setsid`, in groups of their own. So every run's
 * environment also carries a tag (`TASK_OUTCOME_RUN_TAG`), inherited by
 * every descendant, and on Linux the kill also finds processes by that tag
 * in /proc/<pid>/environ. Only a process that wipes its environment escapes.
 */

/** How to run one agent process. */
export interface AgentProcessOptions {
  /** The executable and its arguments. */
  readonly file: string
  readonly args: readonly string[]
  /** The working directory (the run's workspace). */
  readonly cwd: string
  /** The whole environment: nothing from `process.env` is added. */
  readonly env: Readonly<Record<string, string>>
  /** Written to stdin, which is then closed. Without it stdin is closed from the start (`/dev/null`). */
  readonly input?: string
  /** Wall-clock limit; past it the whole group is killed and `timedOut` is true. */
  readonly timeoutMs: number
  /** Aborting kills the whole group (`aborted` is true). */
  readonly signal?: AbortSignal
  /** Between SIGTERM and SIGKILL when the group is killed (default 2 s). */
  readonly killGraceMs?: number
  /** Called with each stdout line as it arrives (without the newline). */
  readonly onLine?: (line: string) => void
  /** Called with each stderr line as it arrives. */
  readonly onStderrLine?: (line: string) => void
  /**
   * The run's sandbox: the process starts inside it (its own namespaces, the
   * overlay workspace, the network allowlist). When its main process ends,
   * the kernel ends everything else in its PID namespace. Undefined: runs on
   * the host (an experiment with `sandbox: 'none'`, or a version probe).
   */
  readonly sandbox?: RunSandbox
  /** Harness loopback ports the sandboxed process reaches at the same 127.0.0.1 port (the scripted model server). */
  readonly loopbackPorts?: readonly number[]
  /** More read-only paths the sandboxed process needs (a package its script imports). */
  readonly readOnly?: readonly string[]
}

/** What the process did. A process that could not be started throws `HarnessFailure('crash')` instead. */
export interface AgentProcessResult {
  /** The leader's exit code, or null when a signal ended it. */
  readonly exitCode: number | null
  /** The signal that ended the leader (`SIGTERM`, `SIGKILL`), or null. */
  readonly signal: string | null
  /** True when the wall-clock limit killed the group. */
  readonly timedOut: boolean
  /** True when the abort signal killed the group. */
  readonly aborted: boolean
  /** Everything the process printed on stdout, lines joined by `\n`. */
  readonly stdout: string
  readonly stderr: string
  /** Wall time from spawn to the group's end, in milliseconds. */
  readonly wallMs: number
  /** The process group id (the leader's pid), so callers can check that nothing of it is left. */
  readonly pgid: number | undefined
  /** The run's tag (the value of `TASK_OUTCOME_RUN_TAG` in its environment). */
  readonly tag: string
}

/** The environment variable every process of a run inherits, so stragglers outside its group can be found. */
export const RUN_TAG_VARIABLE = 'TASK_OUTCOME_RUN_TAG'

/**
 * The tag of the Vitest invocation (set by the plugin in the main process,
 * inherited by its workers). Every agent process carries it too, so the
 * invocation's watchdog finds and kills whatever is left when Vitest dies.
 */
export const SESSION_VARIABLE = 'TASK_OUTCOME_SESSION'

/** The invocation's tag for an agent's environment, when this process belongs to one. */
function sessionTag(): Record<string, string> {
  const session = process.env[SESSION_VARIABLE]
  return session === undefined || session === '' ? {} : { [SESSION_VARIABLE]: session }
}

const DEFAULT_KILL_GRACE_MS = 2000
const POLL_MS = 25

interface ProcessInfo {
  readonly pid: number
  readonly pgid: number
  readonly zombie: boolean
}

/** Linux: every process, from /proc. Null where /proc is unavailable. */
function listProcesses(): ProcessInfo[] | null {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return null
  }
  const processes: ProcessInfo[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Fields after the command name (which may hold spaces and parentheses): state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      processes.push({ pid: Number(entry), pgid: Number(fields[2]), zombie: fields[0] === 'Z' || fields[0] === 'X' })
    } catch {
      // The process ended while we looked.
    }
  }
  return processes
}

function carriesTag(pid: number, tag: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${RUN_TAG_VARIABLE}=${tag}`)
  } catch {
    return false
  }
}

/**
 * The live (non-zombie) processes of a run: members of its process group and,
 * given its tag, any process whose environment carries it. Zombies do not
 * count (a container's init may never reap them, and they hold nothing).
 * Null where /proc is unavailable.
 */
export function liveRunProcesses(pgid: number, tag?: string): number[] | null {
  const processes = listProcesses()
  if (processes === null) return null
  return processes
    .filter((info) => !info.zombie && info.pid !== process.pid && (info.pgid === pgid || (tag !== undefined && carriesTag(info.pid, tag))))
    .map((info) => info.pid)
}

/** True while any process of group `pgid` (or, given `tag`, carrying the run's tag) is alive. */
export function processGroupAlive(pgid: number, tag?: string): boolean {
  const live = liveRunProcesses(pgid, tag)
  if (live !== null) return live.length > 0
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

function signalRun(pgid: number, tag: string | undefined, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // ESRCH: the group is already gone.
  }
  for (const pid of liveRunProcesses(pgid, tag) ?? []) {
    try {
      process.kill(pid, signal)
    } catch {
      // Gone meanwhile.
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Kills every process of a run: group `pgid` and, given `tag`, every process
 * carrying it. SIGTERM, then SIGKILL to whatever is left after `graceMs`.
 * Resolves when no live process of the run remains.
 */
export async function killProcessGroup(pgid: number, graceMs: number = DEFAULT_KILL_GRACE_MS, tag?: string): Promise<void> {
  if (!processGroupAlive(pgid, tag)) return
  signalRun(pgid, tag, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline) {
    if (!processGroupAlive(pgid, tag)) return
    await sleep(POLL_MS)
  }
  for (let tries = 0; tries < 200 && processGroupAlive(pgid, tag); tries++) {
    signalRun(pgid, tag, 'SIGKILL')
    await sleep(POLL_MS)
  }
}

function readLines(stream: NodeJS.ReadableStream | null | undefined, sink: string[], onLine?: (line: string) => void): Promise<void> {
  if (stream === null || stream === undefined) return Promise.resolve()
  const lines = createInterface({ input: stream, crlfDelay: Infinity })
  lines.on('line', (line) => {
    sink.push(line)
    onLine?.(line)
  })
  return new Promise((resolve) => {
    lines.once('close', () => resolve())
  })
}

/**
 * Runs an agent CLI in its own process group and waits for the whole group.
 * The timeout and the abort signal kill the group (SIGTERM, then SIGKILL);
 * when the leader exits on its own, anything it left running in its group is
 * killed too, so no process of the run outlives it.
 */
export async function runAgentProcess(options: AgentProcessOptions): Promise<AgentProcessResult> {
  const started = performance.now()
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS
  const tag = randomUUID()
  const env = { ...options.env, ...sessionTag(), [RUN_TAG_VARIABLE]: tag }
  const line =
    options.sandbox === undefined
      ? { file: options.file, args: [...options.args], env, cwd: options.cwd }
      : {
          ...(await options.sandbox.commandLine({ file: options.file, args: options.args, cwd: options.cwd, env, loopbackPorts: options.loopbackPorts ?? [], readOnly: options.readOnly ?? [] })),
          cwd: '/',
        }
  const subprocess = execa(line.file, line.args, {
    cwd: line.cwd,
    env: { ...line.env, ...sessionTag(), [RUN_TAG_VARIABLE]: tag },
    extendEnv: false,
    detached: true,
    reject: false,
    buffer: false,
    stripFinalNewline: false,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
  })
  const pgid = subprocess.pid
  const stdoutLines: string[] = []
  const stderrLines: string[] = []
  const stdoutDone = readLines(subprocess.stdout, stdoutLines, options.onLine)
  const stderrDone = readLines(subprocess.stderr, stderrLines, options.onStderrLine)

  let timedOut = false
  let aborted = false
  let killing: Promise<void> | undefined
  const killGroup = () => (killing ??= pgid === undefined ? Promise.resolve() : killProcessGroup(pgid, graceMs, tag))

  const timer = setTimeout(() => {
    timedOut = true
    void killGroup()
  }, options.timeoutMs)
  const onAbort = () => {
    aborted = true
    void killGroup()
  }
  if (options.signal?.aborted) onAbort()
  else options.signal?.addEventListener('abort', onAbort, { once: true })

  // The leader's exit: clean up whatever it left in its group, which also
  // closes pipes a straggler may hold open.
  const exited = new Promise<void>((resolve) => {
    subprocess.once('exit', () => {
      void killGroup().then(resolve)
    })
    subprocess.once('error', () => resolve())
  })

  const result = await subprocess
  clearTimeout(timer)
  options.signal?.removeEventListener('abort', onAbort)
  if (pgid === undefined || (result.failed && result.exitCode === undefined && result.signal === undefined && !timedOut && !aborted)) {
    throw new HarnessFailure('crash', `could not start ${options.file}: ${result.originalMessage ?? result.message}`, {
      retryable: false,
      cause: result,
    })
  }
  await exited
  await Promise.all([stdoutDone, stderrDone])
  if (killing !== undefined) await killing
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut,
    aborted,
    stdout: stdoutLines.join('\n'),
    stderr: stderrLines.join('\n'),
    wallMs: performance.now() - started,
    pgid,
    tag,
  }
}
