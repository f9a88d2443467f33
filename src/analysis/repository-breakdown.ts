import { DataError } from '../errors.ts'
import type { RecordedRun } from '../runs/record.ts'
import { mcnemarExact, type McNemarResult } from '../stats/mcnemar.ts'
import { signedRankMinimumP } from '../stats/signed-rank-floor.ts'
import { wilcoxonSignedRank } from '../stats/wilcoxon.ts'
import { hodgesLehmannUsd, type Comparison, type HodgesLehmannResult } from './comparison.ts'

/** The name the breakdown gives tasks whose records name no repository (folder tasks, or records made before the field). */
export const NO_REPOSITORY = '(no repository)'

/**
 * One repository's share of a comparison: the primary and co-primary
 * endpoints computed on its tasks alone. Exploratory: the pre-registered test
 * is the pooled one over every task (`comparisons`); these say whether one
 * repository carries the pooled result, and are never adjusted or judged.
 */
export interface RepositoryEndpoints {
  readonly repository: string
  readonly tasks: number
  /** The exact one-sided signed-rank test on this repository's d (zero d dropped), with the smallest p its n allows. */
  readonly primary: { readonly statistic: number; readonly p: number; readonly n: number; readonly minimumP: number }
  /** The Hodges–Lehmann estimate of this repository's median d (USD), with its interval. */
  readonly hodgesLehmann: HodgesLehmannResult
  /** Tasks solved by each arm among this repository's, and treatment − control. */
  readonly solved: { readonly control: number; readonly treatment: number; readonly difference: number }
  /** The exact McNemar test on this repository's discordant tasks. */
  readonly mcnemar: McNemarResult
}

/** One claim arm against the control, broken down by repository (repositories by name). */
export interface RepositoryComparison {
  readonly treatment: string
  readonly control: string
  readonly repositories: readonly RepositoryEndpoints[]
}

/**
 * Every task's repository, from its records' `repository` field (tasks whose
 * records name none are under `NO_REPOSITORY`). A task whose records name two
 * repositories is refused: its runs were not of one task.
 */
export function taskRepositories(records: readonly RecordedRun[]): ReadonlyMap<string, string> {
  const byTask = new Map<string, string>()
  for (const record of records) {
    const repository = record.repository ?? NO_REPOSITORY
    const earlier = byTask.get(record.task)
    if (earlier !== undefined && earlier !== repository) {
      throw new DataError(`runs.jsonl: task ${record.task} has runs naming repository "${earlier}" and runs naming "${repository}": a task comes from one repository`)
    }
    byTask.set(record.task, repository)
  }
  return byTask
}

/** The repositories the tasks come from, by name; more than one is what makes a breakdown. */
export function repositoriesOf(repositoryOf: ReadonlyMap<string, string>): string[] {
  return [...new Set(repositoryOf.values())].sort()
}

/**
 * A comparison broken down by repository: its per-task pairs grouped by the
 * task's repository, and for each group the same primary (exact signed-rank
 * on d, Hodges–Lehmann) and co-primary (solved tasks, exact McNemar) the
 * pooled comparison computes over all of them.
 */
export function repositoryBreakdown(comparison: Pick<Comparison, 'treatment' | 'control' | 'perTask'>, repositoryOf: ReadonlyMap<string, string>): RepositoryComparison {
  const groups = new Map<string, Comparison['perTask'][number][]>()
  for (const pair of comparison.perTask) {
    const repository = repositoryOf.get(pair.task) ?? NO_REPOSITORY
    groups.set(repository, [...(groups.get(repository) ?? []), pair])
  }
  const repositories = [...groups.keys()].sort().map((repository): RepositoryEndpoints => {
    const pairs = groups.get(repository)!
    const differences = pairs.map((pair) => pair.d)
    const wilcoxon = wilcoxonSignedRank(differences, { alternative: 'less' })
    const control = pairs.filter((pair) => pair.control.solved).length
    const treatment = pairs.filter((pair) => pair.treatment.solved).length
    return {
      repository,
      tasks: pairs.length,
      primary: { statistic: wilcoxon.statistic, p: wilcoxon.p, n: wilcoxon.n, minimumP: signedRankMinimumP(wilcoxon.n, 1) },
      hodgesLehmann: hodgesLehmannUsd(differences),
      solved: { control, treatment, difference: treatment - control },
      mcnemar: mcnemarExact(
        pairs.filter((pair) => pair.treatment.solved && !pair.control.solved).length,
        pairs.filter((pair) => pair.control.solved && !pair.treatment.solved).length,
      ),
    }
  })
  return { treatment: comparison.treatment, control: comparison.control, repositories }
}
