import { constants, type Dirent } from 'node:fs'
import { open, readdir } from 'node:fs/promises'
import path from 'node:path'

/**
 * Usage files a session writes in its own HOME (Codex's rollout, the Gemini
 * CLI's chat record) are append logs, and the session can rewrite them: an
 * add-on in it (a Codex `notify` program, a hook, a tool) can replace two
 * large requests with six small ones before the harness reads them. So the
 * harness tails them from the host while the session runs, into a copy that
 * only grows: every look reads what was appended since the last one, and a
 * file that no longer starts with what was seen (rewritten), got shorter
 * (truncated) or is gone (deleted) is a violation, named, which makes the
 * run `tampered`. The harness reads the copy, never the file.
 *
 * A rewrite made before the first look cannot be told from the session's own
 * writing; what it would change is the agent's own report, which the
 * metering gateway's count is checked against (`cost-disagrees`).
 */

/** How often the folder is looked at while the session runs. */
const LOOK_EVERY_MS = 50

/** One file seen: what was copied of it and how it looked when it was last read (a change time no process can set back). */
interface Tailed {
  copy: Buffer
  size: number
  ctimeMs: number
}

/** What the tail saw of a session's usage files when it stopped. */
export interface TailedFiles {
  /** Each file seen (absolute path) and its append-only copy, in the order they appeared. */
  readonly copies: ReadonlyMap<string, string>
  /** Each rewrite, truncation or deletion found, one sentence each; empty when every file only grew. */
  readonly violations: readonly string[]
}

/** Tails the files under a folder whose names `matches` accepts. Start it before the session, `stop()` once it has ended. */
export class AppendOnlyTail {
  readonly #dir: string
  readonly #matches: (name: string) => boolean
  readonly #files = new Map<string, Tailed>()
  readonly #violations: string[] = []
  readonly #timer: NodeJS.Timeout
  #looking: Promise<void> = Promise.resolve()

  private constructor(dir: string, matches: (name: string) => boolean) {
    this.#dir = dir
    this.#matches = matches
    this.#timer = setInterval(() => this.#queueLook(), LOOK_EVERY_MS)
  }

  /** Starts tailing `dir` (which need not exist yet) for files whose names `matches` accepts. */
  static start(dir: string, matches: (name: string) => boolean): AppendOnlyTail {
    const tail = new AppendOnlyTail(dir, matches)
    tail.#queueLook()
    return tail
  }

  /** What is copied so far, once the look under way has finished (the tail goes on). */
  async peek(): Promise<ReadonlyMap<string, string>> {
    await this.#looking
    return new Map([...this.#files].map(([file, tailed]) => [file, tailed.copy.toString('utf8')]))
  }

  /** Stops tailing after one last look; returns the copies and every violation found. */
  async stop(): Promise<TailedFiles> {
    clearInterval(this.#timer)
    this.#queueLook(true)
    return { copies: await this.peek(), violations: [...this.#violations] }
  }

  /** Queues a look after the one running; the final one reads every file whole, changed or not. */
  #queueLook(final = false): void {
    this.#looking = this.#looking.then(() => this.#look(final)).catch(() => undefined)
  }

  async #look(final = false): Promise<void> {
    let entries: Dirent[]
    try {
      entries = await readdir(this.#dir, { recursive: true, withFileTypes: true })
    } catch {
      entries = []
    }
    const present = new Set(entries.filter((entry) => entry.isFile() && this.#matches(entry.name)).map((entry) => path.join(entry.parentPath, entry.name)))
    for (const file of this.#files.keys()) {
      if (!present.has(file) && !this.#reported(file)) this.#violation(file, 'was deleted while the session ran')
    }
    for (const file of present) await this.#read(file, final)
  }

  async #read(file: string, final: boolean): Promise<void> {
    const seen = this.#files.get(file)
    // Never through a link the session made: a link in place of the file is as good as its deletion.
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => error)
    if (handle instanceof Error) {
      if (seen !== undefined && !this.#reported(file)) this.#violation(file, vanished(handle))
      return
    }
    try {
      const info = await handle.stat()
      if (!info.isFile()) {
        if (seen !== undefined && !this.#reported(file)) this.#violation(file, 'was replaced by something that is not a file')
        return
      }
      if (seen !== undefined && seen.size === info.size && seen.ctimeMs === info.ctimeMs && !final) return
      const content = await handle.readFile()
      if (seen === undefined) {
        this.#files.set(file, { copy: content, size: info.size, ctimeMs: info.ctimeMs })
        return
      }
      if (this.#reported(file)) return
      if (content.length < seen.copy.length) this.#violation(file, `was truncated while the session ran (${seen.copy.length} bytes seen, ${content.length} left)`)
      else if (!content.subarray(0, seen.copy.length).equals(seen.copy))
        this.#violation(file, `was rewritten while the session ran: its first ${seen.copy.length} bytes are no longer what the session wrote`)
      else this.#files.set(file, { copy: content, size: info.size, ctimeMs: info.ctimeMs })
    } finally {
      await handle.close()
    }
  }

  #reported(file: string): boolean {
    return this.#violations.some((violation) => violation.startsWith(`${file} `))
  }

  #violation(file: string, what: string): void {
    this.#violations.push(`${file} ${what}`)
  }
}

/** Why a file seen before could not be opened: gone, a link in its place (never followed), or unreadable. */
export function vanished(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'was deleted while the session ran'
  if (error.code === 'ELOOP') return 'was replaced by a link while the session ran'
  return `could no longer be read while the session ran (${error.code ?? error.message})`
}
