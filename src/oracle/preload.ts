import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * The oracle's own preload for Node test processes: a CommonJS module loaded
 * with `--require` (through NODE_OPTIONS, so every Node process the runner
 * starts gets it) before any of the agent's code, ES module or not. CommonJS,
 * because an `--import` of an ES module starts the ESM loader in every process
 * (the runner's own, which loads no ES module otherwise, too). It freezes the
 * exports of `node:assert`, `node:assert/strict` and `node:test`, so assigning,
 * `Object.assign`, `defineProperty` or `Reflect.set` on them fails (throws in
 * a module, is ignored in sloppy code) whichever way the module was reached.
 * Written by the harness for each run, outside the copy, read-only in the
 * sandbox.
 */
export const NODE_PRELOAD_SOURCE = `'use strict'
for (const id of ['node:assert', 'node:assert/strict', 'node:test']) Object.freeze(require(id))
`

/** Writes the preload into `dir` (a folder of the oracle's own, outside the copy) and returns its path. */
export async function writeNodePreload(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, 'oracle-preload.cjs')
  await writeFile(file, NODE_PRELOAD_SOURCE, { mode: 0o444 })
  return file
}
