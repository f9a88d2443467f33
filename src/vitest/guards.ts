import type { TestProject, Vitest } from 'vitest/node'

/**
 * What Vitest options may not do to an experiment (DESIGN, "How Vitest is
 * used"). Each refusal is one line saying why and what to do; it comes before
 * any run, so nothing is recorded.
 */

/** Why an option is refused, or undefined when the project's resolved config is fine. */
export function refusedOption(project: TestProject, experiment: string): string | undefined {
  const config = project.config as unknown as {
    retry?: number | { count?: number }
    repeats?: number
    sequence?: { shuffle?: boolean | { files?: boolean; tests?: boolean }; concurrent?: boolean }
  }
  const retry = typeof config.retry === 'number' ? config.retry : (config.retry?.count ?? 0)
  if (retry > 0) {
    return (
      `--retry is refused for experiment "${experiment}": Vitest would run an unsolved run again until it passes and record one run's cost, ` +
      `a biased result. Harness failures are already retried (the experiment's \`retries\`); run without --retry.`
    )
  }
  if ((config.repeats ?? 0) > 0) {
    return `--repeats is refused for experiment "${experiment}": it would pay for every run again and record it once. Add seeds before the first run instead; run without --repeats.`
  }
  const shuffle = config.sequence?.shuffle
  if (shuffle === true || (typeof shuffle === 'object' && (shuffle.files === true || shuffle.tests === true))) {
    return (
      `--sequence.shuffle is refused for experiment "${experiment}": its runs are declared in the pre-registered seeded order (orderSeed) ` +
      `that every record keeps, and a shuffle would run them in another. Run without it (to change the order, change orderSeed before the first run).`
    )
  }
  if (config.sequence?.concurrent === true) {
    return (
      `--sequence.concurrent is refused for experiment "${experiment}": a task's runs would share one worker at once and compete for it, ` +
      `changing their wall times and timeouts. Run without it; the experiment's maxWorkers (or --maxWorkers) runs tasks in parallel.`
    )
  }
  return undefined
}

/** True when `--project` (or the config's `project`) names this project itself (not through a wildcard). */
export function namedByProjectFilter(vitest: Vitest, name: string): boolean {
  const filter = (vitest.config as unknown as { project?: string | string[] }).project
  const filters = filter === undefined ? [] : Array.isArray(filter) ? filter : [filter]
  return filters.includes(name)
}

/** Stops Vitest with one line on stderr, before anything runs (no stack trace: it is the user's option, not a bug). */
export function refuse(vitest: Vitest, message: string): never {
  vitest.logger.error(`task-outcome: ${message}`)
  process.exit(1)
}
