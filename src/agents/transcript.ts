import { createHash } from 'node:crypto'
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * Saves an agent's raw transcript (what it printed, byte for byte) and returns
 * its SHA-256, which the run record carries so anyone can check the file
 * beside the results is the one the numbers were read from.
 */
export async function saveTranscript(file: string, text: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true })
  const bytes = Buffer.from(text, 'utf8')
  await writeFile(file, bytes)
  return createHash('sha256').update(bytes).digest('hex')
}

/**
 * A transcript written as the agent prints it, line by line, hashed on the
 * way: the same bytes `saveTranscript` would write (each line and a newline),
 * but on disk while the run is still going.
 */
export class TranscriptWriter {
  readonly #file: WriteStream
  readonly #hash = createHash('sha256')
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
