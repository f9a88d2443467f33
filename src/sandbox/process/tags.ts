/**
 * The marks every process the harness starts carries in its environment, so
 * that its descendants can be found even after they leave its process group.
 */

/** The environment variable every process of a run inherits, so stragglers outside its group can be found. */
export const RUN_TAG_VARIABLE = 'TASK_OUTCOME_RUN_TAG'

/**
 * The tag of the Vitest invocation (set by the plugin in the main process,
 * inherited by its workers). Every process the runner starts carries it too,
 * so the invocation's watchdog finds and kills whatever is left when Vitest dies.
 */
export const SESSION_VARIABLE = 'TASK_OUTCOME_SESSION'

/** The variables a process of run `tag` carries: the run's tag and, when this process belongs to an invocation, its tag. */
export function processTags(tag: string): Record<string, string> {
  const session = process.env[SESSION_VARIABLE]
  return { ...(session === undefined || session === '' ? {} : { [SESSION_VARIABLE]: session }), [RUN_TAG_VARIABLE]: tag }
}
