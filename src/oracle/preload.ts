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
 *
 * `node --test`'s own process (no `NODE_TEST_CONTEXT`, `--test` among its
 * flags) runs no test file while each file runs in a process of its own (the
 * default isolation): it only starts them and runs the reporters, which never
 * call an assertion. There the preload does nothing, since loading
 * `node:assert` and `node:test` costs that process 10 to 15 ms of a run's
 * time. With any test isolation flag given (`none` runs the files in that
 * process) it freezes there too.
 */
export const NODE_PRELOAD_SOURCE = `'use strict'
const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? '']
const runnerOnly = process.env.NODE_TEST_CONTEXT === undefined && process.execArgv.includes('--test') && !flags.some((flag) => flag.includes('isolation'))
if (!runnerOnly) for (const id of ['node:assert', 'node:assert/strict', 'node:test']) Object.freeze(require(id))
`

/** Writes the preload into `dir` (a folder of the oracle's own, outside the copy) and returns its path. */
export async function writeNodePreload(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, 'oracle-preload.cjs')
  await writeFile(file, NODE_PRELOAD_SOURCE, { mode: 0o444 })
  return file
}
