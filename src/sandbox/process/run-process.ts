import { randomUUID } from 'node:crypto'
import { execa } from 'execa'
import { HarnessFailure } from '../../errors.ts'
import type { ProcessCommand, ProcessEnvironment } from './environment.ts'
import { OutputCollector, stripNewline } from './output.ts'
import { processTags } from './tags.ts'
import { terminate, type TerminationOptions } from './terminate/index.ts'

/**
 * The one way the harness starts a process: an agent CLI, a setup command,
 * an oracle's test command or `verify.sh`, a dependency preparation, a
 * reference solution, the harness's own `cp` and `git`. Every process runs
 * in an environment the caller names (bubblewrap, or the host, explicitly),
 * as the leader of a process group of its own, with the run's tag in its
 * environment, under one termination policy (`terminate/`): its whole tree is
 * killed at the timeout, on abort, and (whatever the leader left) when the
 * leader exits, so no process of a run outlives it.
 */

/** The executable and its arguments. */
export interface ProcessFile {
  readonly file: string
  readonly args: readonly string[]
}

/** How to run one process. */
export interface RunProcessOptions extends TerminationOptions, Omit<ProcessCommand, 'file' | 'args'> {
  /** Where it runs: a sandbox, or `UNSANDBOXED_HOST` on purpose. */
  readonly sandbox: ProcessEnvironment
  /** Written to stdin, which is then closed. Without it stdin is closed from the start (`/dev/null`). */
  readonly input?: string
  /** Called with each stdout line as it arrives (without the line break). */
  readonly onLine?: (line: string) => void
  /** Called with each stderr line as it arrives. */
  readonly onStderrLine?: (line: string) => void
  /** False keeps a final line break on stdout and stderr (a patch's bytes); default true drops one, as `$(…)` does. */
  readonly stripFinalNewline?: boolean
  /** Characters kept of each stream (default 64 Mi); past it the head is kept and `truncated` set. */
  readonly maxChars?: number
}

/** What the process did. A process that could not be started throws `HarnessFailure('crash')` instead. */
export interface ProcessResult {
  /** The leader's exit code, or null when a signal ended it. */
  readonly exitCode: number | null
  /** The signal that ended the leader (`SIGTERM`, `SIGKILL`), or null. */
  readonly signal: string | null
  /** True when the wall-clock limit killed the tree. */
  readonly timedOut: boolean
  /** True when the abort signal killed the tree. */
  readonly aborted: boolean
  readonly stdout: string
  readonly stderr: string
  /** Standard output and error interleaved in the order they arrived. */
  readonly all: string
  /** True when a stream printed more than `maxChars` and was cut. */
  readonly truncated: boolean
  /** Wall time from spawn to the tree's end, in milliseconds. */
  readonly wallMs: number
  /** The process group id (the leader's pid), so callers can check that nothing of it is left. */
  readonly pgid: number
  /** The run's tag (the value of `TASK_OUTCOME_RUN_TAG` in its environment). */
  readonly tag: string
}

const DEFAULT_MAX_CHARS = 64 * 1024 * 1024

/** Runs `command` in `options.sandbox` and waits until nothing of its tree is left. */
export async function runProcess(command: ProcessFile, options: RunProcessOptions): Promise<ProcessResult> {
  const started = performance.now()
  const tag = randomUUID()
  const tags = processTags(tag)
  const line = await options.sandbox.startLine({
    file: command.file,
    args: command.args,
    cwd: options.cwd,
    env: { ...options.env, ...tags },
    ...(options.loopbackPorts === undefined ? {} : { loopbackPorts: options.loopbackPorts }),
    ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
    ...(options.writable === undefined ? {} : { writable: options.writable }),
    ...(options.network === undefined ? {} : { network: options.network }),
  })
  const subprocess = execa(line.file, [...line.args], {
    cwd: line.cwd,
    env: { ...line.env, ...tags },
    extendEnv: false,
    detached: true,
    reject: false,
    // The collectors below read both streams; buffered, execa would keep a second copy of them (and strip its own).
    // Stryker disable next-line BooleanLiteral: memory only, as above.
    buffer: false,
    // Stryker disable next-line BooleanLiteral: applies to execa's buffered output alone, which is off.
    stripFinalNewline: false,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
  })
  const pgid = subprocess.pid
  if (pgid === undefined) {
    const failure = await subprocess
    throw new HarnessFailure('crash', `could not start ${command.file}: ${failure.originalMessage ?? failure.message}`, { retryable: false, cause: failure })
  }
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS
  const all: string[] = []
  const stdout = new OutputCollector(maxChars, all)
  const stderr = new OutputCollector(maxChars, all)
  const outputDone = Promise.all([stdout.read(subprocess.stdout, options.onLine), stderr.read(subprocess.stderr, options.onStderrLine)])
  const termination = terminate(pgid, tag, options)
  // The leader's exit: kill whatever it left in its tree, which also closes pipes a straggler may hold open.
  const settled = new Promise<void>((resolve) => subprocess.once('exit', () => void termination.settle().then(resolve)))
  const result = await subprocess
  await settled
  await outputDone
  const strip = options.stripFinalNewline ?? true
  const out = stdout.text(strip)
  const err = stderr.text(strip)
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut: termination.timedOut,
    aborted: termination.aborted,
    stdout: out.text,
    stderr: err.text,
    all: strip ? stripNewline(all.join('')) : all.join(''),
    truncated: out.truncated || err.truncated,
    wallMs: performance.now() - started,
    pgid,
    tag,
  }
}
