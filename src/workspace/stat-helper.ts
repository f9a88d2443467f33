import type { lstatSync } from 'node:fs'
import { Worker } from 'node:worker_threads'

/**
 * A second thread for long seal checks (`StatSeal.firstMoved`): a folder of
 * tens of thousands of entries costs one `lstat` each, and the harness's own
 * thread can do only one at a time. The helper checks the later part of a
 * seal's entries while the caller checks the earlier part, so on a machine
 * with a free core the check takes about half as long; it compares exactly
 * what the caller compares (`movedAt` below, one function for both threads).
 * One helper per process, made on first use, holding the entries it was
 * given (sent once per seal, dropped with it); it never keeps the process
 * alive while idle. Where a worker cannot run or fails, `firstMovedIn`
 * answers undefined and the caller checks those entries itself.
 */

/** The numbers a seal keeps per entry (inode number, mode, size, mtime and ctime in ms): `FIELDS` in stat-seal.ts. */
export const SEAL_FIELDS = 5

/**
 * The first entry in [`from`, `to`) whose inode metadata moved (or that is
 * gone), or -1. `stats` holds `SEAL_FIELDS` numbers per entry of `paths`.
 * Self-contained (the helper thread runs its source).
 */
export function movedAt(paths: readonly string[], stats: Float64Array, from: number, to: number, lstat: typeof lstatSync): number {
  for (let i = from; i < to; i++) {
    const info = lstat(paths[i]!, { throwIfNoEntry: false })
    if (info === undefined) return i
    const at = i * 5
    if (info.ino !== stats[at] || info.mode !== stats[at + 1] || info.size !== stats[at + 2] || info.mtimeMs !== stats[at + 3] || info.ctimeMs !== stats[at + 4]) return i
  }
  return -1
}

const HELPER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const { lstatSync } = require('node:fs')
const movedAt = ${movedAt.toString()}
const kept = new Map()
parentPort.on('message', (message) => {
  if (message.kind === 'keep') kept.set(message.seal, message)
  else if (message.kind === 'drop') kept.delete(message.seal)
  else {
    const seal = kept.get(message.seal)
    parentPort.postMessage({ request: message.request, moved: seal === undefined ? null : movedAt(seal.paths, seal.stats, 0, seal.paths.length, lstatSync) })
  }
})
`

interface Pending {
  readonly resolve: (moved: number | null) => void
}

/** A seal's part as the helper checks it: the entries' absolute paths, `SEAL_FIELDS` numbers each. */
export interface SealPart {
  readonly paths: readonly string[]
  readonly stats: Float64Array
}

/** The process's helper thread and what it was given. */
class Helper {
  readonly #worker: Worker
  readonly #pending = new Map<number, Pending>()
  readonly #given = new Set<number>()
  #requests = 0
  #broken = false

  constructor() {
    this.#worker = new Worker(HELPER_SOURCE, { eval: true })
    this.#worker.unref()
    this.#worker.on('message', (message: { request: number; moved: number | null }) => {
      const pending = this.#pending.get(message.request)
      this.#pending.delete(message.request)
      if (this.#pending.size === 0) this.#worker.unref()
      pending?.resolve(message.moved)
    })
    const fail = () => {
      this.#broken = true
      for (const pending of this.#pending.values()) pending.resolve(null)
      this.#pending.clear()
    }
    this.#worker.on('error', fail)
    this.#worker.on('exit', fail)
  }

  get broken(): boolean {
    return this.#broken
  }

  give(seal: number, part: () => SealPart): void {
    if (this.#broken || this.#given.has(seal)) return
    const { paths, stats } = part()
    this.#worker.postMessage({ kind: 'keep', seal, paths, stats })
    this.#given.add(seal)
  }

  /** The first moved entry of the seal's part (an index into its paths), -1 for none, null when the helper could not say. */
  check(seal: number, part: () => SealPart): Promise<number | null> {
    this.give(seal, part)
    if (this.#broken) return Promise.resolve(null)
    const request = ++this.#requests
    return new Promise((resolve) => {
      this.#pending.set(request, { resolve })
      this.#worker.ref()
      this.#worker.postMessage({ kind: 'check', seal, request })
    })
  }

  drop(seal: number): void {
    if (!this.#given.delete(seal) || this.#broken) return
    this.#worker.postMessage({ kind: 'drop', seal })
  }
}

/** The helper; null once one failed (then every part is checked by its caller, as without a helper). */
let helper: Helper | null | undefined
let seals = 0
const forgotten = new FinalizationRegistry<number>((seal) => helper?.drop(seal))

function currentHelper(): Helper | null {
  if (helper?.broken === true) helper = null
  if (helper === undefined) {
    try {
      helper = new Helper()
    } catch {
      helper = null
    }
  }
  return helper
}

/**
 * Gives the helper thread a seal's part to keep (made on first use, so it is
 * ready by the first check) and returns the number the part is asked about
 * by; the helper forgets the part once `owner` is collected.
 */
export function shareWithHelper(owner: object, part: () => SealPart): number {
  const seal = ++seals
  forgotten.register(owner, seal)
  currentHelper()?.give(seal, part)
  return seal
}

/**
 * The helper thread's answer for a seal's part: the index of its first moved
 * entry, -1 when none moved, or undefined when the helper cannot answer (the
 * caller then checks the part itself).
 */
export async function firstMovedIn(seal: number, part: () => SealPart): Promise<number | undefined> {
  const current = currentHelper()
  if (current === null) return undefined
  return (await current.check(seal, part)) ?? undefined
}
