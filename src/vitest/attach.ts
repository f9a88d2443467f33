import path from 'node:path'
import type { Vitest } from 'vitest/node'

/**
 * Recording belongs to the plugin: whatever reporters the command line names
 * (`--reporter=junit`, `dot`, `blob`, …), the plugin adds the task-outcome
 * reporter to the running Vitest's reporters, so every finished run is
 * appended and the progress and verdict lines print. `configureVitest` runs
 * before Vitest creates its reporters, so the reporter goes into the resolved
 * config (Vitest 4.1 and 5 both read `vitest.config.reporters` afterwards).
 * A user who lists the reporter already keeps theirs; it is never added twice.
 */

/** Marks a task-outcome reporter (a symbol in the global registry: the config's copy and Vitest's copy of the module are different modules). */
export const REPORTER_BRAND = Symbol.for('task-outcome.reporter')

const ATTACHED = Symbol.for('task-outcome.reporter-attached')

/** The reporter module, loaded by Vitest from its path (`.ts` in the sources, `.js` in the build, like this file). */
export const REPORTER_MODULE = path.resolve(import.meta.dirname, `../../reporters/task-outcome${path.extname(import.meta.filename)}`)

function isTaskOutcomeReporter(reference: unknown): boolean {
  if (typeof reference === 'string') return path.resolve(reference) === REPORTER_MODULE || /task-outcome\/reporter$/.test(reference)
  return typeof reference === 'object' && reference !== null && (reference as Record<symbol, unknown>)[REPORTER_BRAND] === true
}

/** Adds the task-outcome reporter to this Vitest's reporters unless it is there already. */
export function attachReporter(vitest: Vitest): void {
  const holder = vitest as unknown as Record<symbol, unknown>
  if (holder[ATTACHED] === true) return
  holder[ATTACHED] = true
  // Resolved entries are `[name or path, options]` tuples, or reporter instances as the config gave them.
  const reporters = vitest.config.reporters as unknown as unknown[]
  if (reporters.some((entry) => isTaskOutcomeReporter(Array.isArray(entry) ? entry[0] : entry))) return
  reporters.push([REPORTER_MODULE, {}])
}
