import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import path from 'node:path'
import { sha256Hasher } from '../shared/sha256.ts'

/**
 * A transcript written as the agent prints it, line by line, hashed on the
 * way: its bytes are the lines it printed, each with a newline, on disk
 * while the run is still going. Its SHA-256 goes into the run record, so
 * anyone can check the file beside the results is the one the numbers were
 * read from.
 */
export class TranscriptWriter {
  readonly #file: WriteStream
  readonly #hash = sha256Hasher()
  readonly #finished: Promise<void>
  #closed: Promise<string> | undefined

  constructor(file: string) {
    mkdirSync(path.dirname(file), { recursive: true })
    this.#file = createWriteStream(file)
    this.#finished = new Promise<void>((resolve, reject) => {
      this.#file.once('finish', resolve)
      this.#file.once('error', reject)
    })
    this.#finished.catch(() => undefined)
  }

  /** Appends one line the agent printed (without its newline). */
  line(line: string): void {
    const raw = `${line}\n`
    this.#file.write(raw)
    this.#hash.update(raw)
  }

  /** Closes the file (once, however often called); resolves to the transcript's SHA-256 once it is on disk. */
  close(): Promise<string> {
    this.#closed ??= (async () => {
      this.#file.end()
      await this.#finished
      return this.#hash.digest('hex')
    })()
    return this.#closed
  }
}
