import { closeSync, constants, openSync, readSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runProcess, UNSANDBOXED_HOST } from '../sandbox/index.ts'

/**
 * The harness's own count of hook starts (the manipulation check from the
 * harness's side). Each configured hook command of the add-on is wrapped so
 * that, before the add-on's command runs, it writes `start <index>` to a
 * named pipe the harness made for this run, outside the workspace and HOME
 * and shown to the sandbox read-only (the session can write lines to it, but
 * can neither remove nor replace it). The harness holds the pipe's only
 * reader and counts each line as it arrives, so what the session prints
 * (`hook_response` lines in the CLI's stdout) or writes in its files never
 * enters this count. See docs/metering.md for what it does and does not prove.
 */

/** How often the pipe is read while the session runs (its buffer holds about 4,000 starts). */
const READ_EVERY_MS = 50

/** What the channel counted when the session ended. */
export interface HookStarts {
  /** Starts by hook index (the position `HookChannel.commandFor` was given). */
  readonly byIndex: ReadonlyMap<number, number>
  /** Lines that are not a start of a known hook, word for word (at most 20). */
  readonly foreign: readonly string[]
}

/** One run's hook channel: open it before the session, `stop()` once it has ended. */
export class HookChannel {
  /** The folder that holds the pipe (to be shown to the sandbox read-only). */
  readonly dir: string
  /** The pipe's path (the same inside the sandbox). */
  readonly path: string
  readonly #fd: number
  readonly #known: number
  readonly #timer: NodeJS.Timeout
  readonly #counts = new Map<number, number>()
  readonly #foreign: string[] = []
  #partial = ''
  #stopped: HookStarts | undefined

  private constructor(dir: string, known: number) {
    this.dir = dir
    this.path = path.join(dir, 'hook-starts')
    this.#known = known
    // Read and write: opening never waits for a writer, and the pipe never reads as ended between hooks.
    this.#fd = openSync(this.path, constants.O_RDWR | constants.O_NONBLOCK)
    this.#timer = setInterval(() => this.#read(), READ_EVERY_MS)
    this.#timer.unref()
  }

  /** Makes the run's pipe (writable by any uid the sandbox maps the agent to) for `known` wrapped hook commands. */
  static async open(known: number): Promise<HookChannel> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-hooks-'))
    await chmod(dir, 0o755)
    const made = await runProcess(
      { file: 'mkfifo', args: ['-m', '666', path.join(dir, 'hook-starts')] },
      { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 10_000, sandbox: UNSANDBOXED_HOST },
    )
    if (made.exitCode !== 0) throw new Error(`mkfifo for the hook channel failed (${made.exitCode ?? 'killed'}): ${made.stderr.trim()}`)
    return new HookChannel(dir, known)
  }

  /**
   * The shell command that counts hook `index` and then runs `command` as the
   * CLI would have (same stdin, same exit status: the add-on's command is the
   * last one run). A pipe that cannot be opened costs the count, never the hook.
   */
  commandFor(index: number, command: string): string {
    return `printf 'start ${index}\\n' 2>/dev/null >> '${this.path}'; ${command}`
  }

  /** Reads what is left, stops reading and removes the pipe; the count is kept. */
  async stop(): Promise<HookStarts> {
    if (this.#stopped === undefined) {
      clearInterval(this.#timer)
      this.#read()
      closeSync(this.#fd)
      this.#stopped = { byIndex: new Map(this.#counts), foreign: [...this.#foreign] }
      await rm(this.dir, { recursive: true, force: true })
    }
    return this.#stopped
  }

  #read(): void {
    const buffer = Buffer.alloc(65_536)
    for (;;) {
      let read: number
      try {
        read = readSync(this.#fd, buffer, 0, buffer.length, null)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return
        throw error
      }
      if (read === 0) return
      const lines = (this.#partial + buffer.subarray(0, read).toString('latin1')).split('\n')
      this.#partial = lines.pop() ?? ''
      for (const line of lines) this.#count(line)
    }
  }

  #count(line: string): void {
    const index = /^start (\d{1,6})$/.exec(line)?.[1]
    if (index !== undefined && Number(index) < this.#known) this.#counts.set(Number(index), (this.#counts.get(Number(index)) ?? 0) + 1)
    else if (this.#foreign.length < 20) this.#foreign.push(line.slice(0, 200))
  }
}
