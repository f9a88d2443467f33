import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'

/**
 * What a process prints, kept as it arrives: each stream's text, both
 * interleaved in arrival order (`all`, for a failure message), and each
 * stream's lines handed to a callback as they come (a transcript written
 * while the agent works). Past `maxChars` a stream's text is cut (the head
 * kept, `truncated` set), so a process printing without end cannot exhaust
 * the harness's memory; the callbacks still see every line.
 */

/** One stream's collected text. */
export interface StreamText {
  readonly text: string
  readonly truncated: boolean
}

/** Collects one stream until it closes. */
export class OutputCollector {
  readonly #chunks: string[] = []
  #length = 0
  #truncated = false
  readonly #maxChars: number
  readonly #shared: string[] | undefined

  constructor(maxChars: number, shared?: string[]) {
    this.#maxChars = maxChars
    this.#shared = shared
  }

  /** Reads `stream` (utf-8); resolves when it has closed. `onLine` gets each line without its line break. */
  read(stream: Readable | null | undefined, onLine?: (line: string) => void): Promise<void> {
    if (stream === null || stream === undefined) return Promise.resolve()
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => this.#add(chunk))
    const closed = new Promise<void>((resolve) => {
      stream.once('close', () => resolve())
      stream.once('error', () => resolve())
    })
    if (onLine === undefined) return closed
    const lines = createInterface({ input: stream, crlfDelay: Infinity })
    lines.on('line', onLine)
    const linesDone = new Promise<void>((resolve) => lines.once('close', () => resolve()))
    return Promise.all([closed, linesDone]).then(() => undefined)
  }

  #add(chunk: string): void {
    const room = this.#maxChars - this.#length
    if (room <= 0) {
      this.#truncated = true
      return
    }
    const kept = chunk.length > room ? chunk.slice(0, room) : chunk
    if (kept.length < chunk.length) this.#truncated = true
    this.#chunks.push(kept)
    this.#shared?.push(kept)
    this.#length += kept.length
  }

  /** The text so far; `stripFinalNewline` drops one trailing `\n` (or `\r\n`), as a shell's `$(…)` would. */
  text(stripFinalNewline: boolean): StreamText {
    const text = this.#chunks.join('')
    return { text: stripFinalNewline ? stripNewline(text) : text, truncated: this.#truncated }
  }
}

/** `text` without one trailing line break. */
export function stripNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2)
  if (text.endsWith('\n')) return text.slice(0, -1)
  return text
}
