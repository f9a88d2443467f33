import { lstatSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { firstMovedIn, movedAt, SEAL_FIELDS, shareWithHelper, type SealPart } from './stat-helper.ts'

/**
 * A folder's seal: every entry's inode number, mode, size, modification time
 * and change time, taken by the harness right after a check of
 * the folder's content passed, and kept in the checking process's memory,
 * where nothing but the harness can change it. Finding that nothing moved
 * since then costs one `lstat` per entry, no read: a write to a file moves
 * its change time (ctime), and no unprivileged process can set a ctime back
 * (restoring the size and mtime with `touch` moves the ctime too); adding,
 * removing or renaming an entry moves its folder's ctime; replacing a file or
 * the whole folder changes the inode. So an unmoved seal means the content is
 * the content that was checked, and only a moved one needs the content check
 * again.
 *
 * One exception is guarded here: a write within the same clock tick as an
 * earlier one can leave the ctime where it was. An entry whose ctime is within
 * `RACY_MARGIN_MS` of the moment the seal was taken makes the seal `racy`: not
 * to be trusted (its holder checks the content again next time), the way git
 * treats a file as racily clean.
 */

/** How close to the seal's own time an entry's ctime may be before the seal is not trusted (far above any clock tick). */
export const RACY_MARGIN_MS = 1_000

/** How many entries are stat'ed between two turns of the event loop (a mount's holder process is read meanwhile). */
const CHUNK = 1_000

/** The numbers kept per entry, in this order: inode number, mode, size, mtime and ctime (ms, with fractions). */
const FIELDS = SEAL_FIELDS

/** From how many entries on a check is shared with the helper thread (`stat-helper.ts`): below, a message costs more than it saves. */
const SHARED_FROM = 4_000

/**
 * Writes `file`'s inode metadata at `at` of `into`; false when it is gone.
 * Times are kept as Node's millisecond numbers (a double resolves 0.25 µs at
 * today's dates): two ctimes a racy margin apart never round to one.
 */
function statInto(file: string, into: Float64Array, at: number): boolean {
  const info = lstatSync(file, { throwIfNoEntry: false })
  if (info === undefined) return false
  into[at] = info.ino
  into[at + 1] = info.mode
  into[at + 2] = info.size
  into[at + 3] = info.mtimeMs
  into[at + 4] = info.ctimeMs
  return true
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A folder's seal (see the file's comment). */
export class StatSeal {
  /** The sealed folder (absolute). */
  readonly dir: string
  /** When the seal was taken (the real-time clock file times are stamped from, ms since the epoch). */
  readonly takenAtMs: number
  /** Whether some entry changed too close to `takenAtMs` for its ctime to prove it unchanged later. */
  readonly racy: boolean
  /** Each entry's path relative to `dir` ('' for the folder itself). */
  readonly #relative: readonly string[]
  /** Each entry's absolute path. */
  readonly #absolute: readonly string[]
  /** `FIELDS` numbers per entry. */
  readonly #stats: Float64Array
  /** Relative path → index. */
  readonly #index: ReadonlyMap<string, number>
  /** Where the helper thread's part of the entries starts, and the number it knows that part by (undefined: no part). */
  readonly #shared: { readonly from: number; readonly seal: number } | undefined

  private constructor(dir: string, takenAtMs: number, relative: string[], absolute: string[], stats: Float64Array, racyMarginMs: number) {
    this.dir = dir
    this.takenAtMs = takenAtMs
    this.#relative = relative
    this.#absolute = absolute
    this.#stats = stats
    this.#index = new Map(relative.map((name, i) => [name, i]))
    let racy = false
    for (let i = 0; i < relative.length; i++) if (stats[i * FIELDS + 4]! >= takenAtMs - racyMarginMs) racy = true
    this.racy = racy
    if (absolute.length >= SHARED_FROM) {
      const from = Math.floor(absolute.length / 2)
      this.#shared = { from, seal: shareWithHelper(this, () => this.#part(from)) }
    }
  }

  #part(from: number): SealPart {
    return { paths: this.#absolute.slice(from), stats: this.#stats.slice(from * FIELDS) }
  }

  /**
   * Seals `dir` as it is now: every entry below it (folders, `.git/` and the
   * folder itself included). Take it before reading the content the seal is to
   * vouch for, so a write during that read moves it. `racyMarginMs` is
   * `RACY_MARGIN_MS` but in this file's own tests, whose folders are made a
   * moment before (a smaller margin spares each a second's wait).
   */
  static async take(folder: string, racyMarginMs: number = RACY_MARGIN_MS): Promise<StatSeal> {
    const dir = path.resolve(folder)
    const takenAtMs = Date.now()
    const found = readdirSync(dir, { recursive: true, withFileTypes: true })
    const relative = ['']
    const absolute = [dir]
    for (const entry of found) {
      const full = path.join(entry.parentPath, entry.name)
      absolute.push(full)
      relative.push(
        full
          .slice(dir.length + 1)
          .split(path.sep)
          .join('/'),
      )
    }
    const stats = new Float64Array(absolute.length * FIELDS)
    const kept: number[] = []
    for (let i = 0; i < absolute.length; i++) {
      if (i > 0 && i % CHUNK === 0) await nextTurn()
      if (statInto(absolute[i]!, stats, kept.length * FIELDS)) kept.push(i)
    }
    return new StatSeal(
      dir,
      takenAtMs,
      kept.map((i) => relative[i]!),
      kept.map((i) => absolute[i]!),
      stats.slice(0, kept.length * FIELDS),
      racyMarginMs,
    )
  }

  /** The number of entries sealed. */
  get size(): number {
    return this.#relative.length
  }

  /** Whether the folder itself moved (one `lstat`): replaced (a template exported anew), renamed into, or gone. */
  folderMoved(): boolean {
    const now = new Float64Array(FIELDS)
    if (!statInto(this.dir, now, 0)) return true
    return [0, 1, 2, 3, 4].some((field) => now[field] !== this.#stats[field])
  }

  /**
   * The first sealed entry whose inode metadata moved (or that is gone), or
   * undefined when none did: one `lstat` per entry, no listing (a new entry
   * moves its folder's ctime). A large seal's later half is checked on the
   * helper thread meanwhile (`stat-helper.ts`), or here when it cannot.
   */
  async firstMoved(): Promise<string | undefined> {
    const shared = this.#shared
    const elsewhere = shared === undefined ? undefined : firstMovedIn(shared.seal, () => this.#part(shared.from))
    const end = shared?.from ?? this.#absolute.length
    const here = await this.#firstMovedHere(0, end)
    if (here !== -1) return this.#relative[here]
    if (elsewhere === undefined) return undefined
    const there = await elsewhere
    const moved = there === undefined ? await this.#firstMovedHere(end, this.#absolute.length) : there === -1 ? -1 : end + there
    return moved === -1 ? undefined : this.#relative[moved]
  }

  /** The first moved entry in [`from`, `to`), or -1; a turn of the event loop every `CHUNK` entries. */
  async #firstMovedHere(from: number, to: number): Promise<number> {
    for (let start = from; start < to; start += CHUNK) {
      if (start > from) await nextTurn()
      const moved = movedAt(this.#absolute, this.#stats, start, Math.min(to, start + CHUNK), lstatSync)
      if (moved !== -1) return moved
    }
    return -1
  }

  /** The entries of `later` (a seal of the same folder taken after this one) that are new or moved, with their ctimes (ms). */
  movedIn(later: StatSeal): { readonly path: string; readonly ctimeMs: number }[] {
    const moved: { path: string; ctimeMs: number }[] = []
    for (let j = 0; j < later.#relative.length; j++) {
      const i = this.#index.get(later.#relative[j]!)
      const same = i !== undefined && [0, 1, 2, 3, 4].every((field) => this.#stats[i * FIELDS + field] === later.#stats[j * FIELDS + field])
      if (!same) moved.push({ path: later.#relative[j]!, ctimeMs: later.#stats[j * FIELDS + 4]! })
    }
    return moved
  }
}
