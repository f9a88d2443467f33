import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { ProblemsError, SpecError } from '../../errors.ts'
import type { OpenRepository } from '../../workspace/repository.ts'
import { harvestCommit, type CommitHarvest, type HarvestSetup } from '../harvest/candidate.ts'
import { readCandidatesFile, relativePosix, ruleFromRecord, sourceOf, type Candidate, type CandidateSource, type LoadedCandidates } from '../harvest/candidates-file.ts'
import type { HarvestRule } from '../harvest/rule.ts'
import { defaultJobs, harvestOracle, harvestDependencies } from '../harvest/harvest.ts'
import { mapPool } from '../pool.ts'
import { withRepositoryScratch } from '../scratch.ts'
import { commitRoles } from '../harvest/scan.ts'
import { listTaskDirs } from '../../tasks/load.ts'
import { EXCLUSION_REASONS, readExclusions, type Exclusion } from './exclusions.ts'
import { checkPrompts, readPrompts, type Prompt } from './prompts.ts'
import { DEFAULT_SELECTION_SEED, stratifiedWalkOrder, walkOrder } from './shuffle.ts'
import { readUsedTasks, type UsedTask, type UsedTaskSet } from './used-tasks.ts'
import { writeTaskFolder } from './write-task.ts'
import { sha256 } from '../../shared/sha256.ts'

/** Everything `select` needs. */
export interface SelectOptions {
  /** The candidates file `harvest` wrote. */
  readonly candidates: string
  /** The task set folder the task folders go to. */
  readonly out: string
  /** The draw's seed (default 20261014, the pre-registered one). */
  readonly seed?: number
  /** How many tasks to keep (default 20). */
  readonly count?: number
  /** `exclusions.json` (default: the set folder's, when it has one). */
  readonly exclusions?: string
  /** The prompts folder (default: the set folder's `prompts/`, when it has one). */
  readonly prompts?: string
  /** Candidates harvested a second time at once (default: the number of CPUs, at most 4). */
  readonly jobs?: number
  /** Limit for each run of the test command (default 5 minutes). */
  readonly timeoutMs?: number
  /**
   * Earlier task sets (e.g. `tasks/pilot`) whose fix commits the draw skips:
   * the confirmatory run's tasks, drawn by the same rule and seed, that none of them used.
   */
  readonly excludeTasksOf?: readonly string[]
  /** `repository`: the repositories of a candidates file of several take turns in the walk (`stratifiedWalkOrder`); absent: one seeded walk over all candidates. */
  readonly stratify?: 'repository'
  /** Remove task folders already in `out` instead of refusing. */
  readonly replace?: boolean
  readonly progress?: (line: string) => void
  readonly signal?: AbortSignal
}

/** What happened to one candidate in the walk. */
export interface WalkEntry {
  readonly fix: string
  readonly subject: string
  /** The candidate's repository (candidates files of several repositories only). */
  readonly repository?: string
  /**
   * excluded: in exclusions.json; used: an earlier task set (`--exclude-tasks-of`) holds it; flaky: the second
   * harvest disagreed; selected: became a task; not reached: the draw was full before it.
   */
  readonly status: 'excluded' | 'used' | 'flaky' | 'selected' | 'not reached'
  readonly reason?: string
  /** The task folder, for a selected candidate. */
  readonly task?: string
}

/** The record of a draw, written to `<set>/selection.json`. */
export interface Selection {
  readonly seed: number
  readonly count: number
  /** How the walk was stratified (absent: one walk over all candidates). */
  readonly stratify?: 'repository'
  /** The candidates file, relative to the set folder, and its SHA-256. */
  readonly candidates: string
  readonly candidatesSha256: string
  readonly exclusions: string | null
  /** Earlier task sets whose tasks this draw skipped (relative to the set folder), and how many each holds. */
  readonly excludedTaskSets?: readonly UsedTaskSet[]
  /** Every candidate in walk order. */
  readonly walk: WalkEntry[]
  /** The task folders written, in order. */
  readonly tasks: string[]
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  )
}

/** The parts of a draw that need no tests run: the candidates, exclusions, prompts and walk order. */
export interface DrawPlan {
  readonly loaded: LoadedCandidates
  readonly seed: number
  readonly exclusionsFile: string | null
  readonly exclusions: Map<string, Exclusion>
  readonly prompts: Map<string, Prompt>
  /** Fix commits earlier task sets used (skipped by the walk), and the sets. */
  readonly used: Map<string, UsedTask>
  readonly usedSets: readonly UsedTaskSet[]
  /** The candidates in walk order. */
  readonly order: Candidate[]
}

/**
 * Reads the candidates, exclusions and prompts, refuses prompts that name a
 * gold file, and computes the seeded walk order. Cheap: `select --plan` prints
 * it so prompts can be written for the candidates the walk will reach.
 */
export async function planDraw(options: Pick<SelectOptions, 'candidates' | 'out' | 'seed' | 'exclusions' | 'prompts' | 'excludeTasksOf' | 'stratify'>): Promise<DrawPlan> {
  const loaded = await readCandidatesFile(options.candidates)
  const fixes = loaded.data.candidates.map((candidate) => candidate.fix)
  const seed = options.seed ?? DEFAULT_SELECTION_SEED
  if (!Number.isSafeInteger(seed)) throw new SpecError(`--seed: must be a whole number, got ${options.seed}`)
  const exclusionsFile = options.exclusions ?? ((await exists(path.join(options.out, 'exclusions.json'))) ? path.join(options.out, 'exclusions.json') : null)
  const exclusions = exclusionsFile === null ? new Map<string, Exclusion>() : await readExclusions(exclusionsFile, fixes)
  const promptsDir = options.prompts ?? ((await exists(path.join(options.out, 'prompts'))) ? path.join(options.out, 'prompts') : null)
  if (promptsDir !== null && !(await exists(promptsDir))) {
    throw new ProblemsError('The prompts cannot be read:', [{ file: promptsDir, message: 'no such folder: write one <commit>.md per candidate there' }])
  }
  const prompts = promptsDir === null ? new Map<string, Prompt>() : await readPrompts(promptsDir, fixes)
  const goldFiles = new Map(loaded.data.candidates.map((candidate) => [candidate.fix, candidate.gold_files]))
  checkPrompts(prompts.values(), (fix) => goldFiles.get(fix) ?? [])
  const { used, sets: usedSets } = await readUsedTasks(options.excludeTasksOf ?? [])
  const order =
    options.stratify === 'repository' ? stratifiedWalkOrder(loaded.data.candidates, seed, (candidate) => sourceOf(loaded, candidate).name) : walkOrder(loaded.data.candidates, seed)
  return { loaded, seed, exclusionsFile, exclusions, prompts, used, usedSets, order }
}

/** Why a second harvest disagrees with the first, or null when it gives the same oracle. */
export function flakyReason(first: Candidate, second: CommitHarvest): string | null {
  if (second.kind === 'dropped') return `the second harvest dropped it: ${second.reason}`
  const differences: string[] = []
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i])
  if (!same(first.FAIL_TO_PASS, second.candidate.FAIL_TO_PASS)) {
    differences.push(`FAIL_TO_PASS was [${first.FAIL_TO_PASS.join(', ')}], now [${second.candidate.FAIL_TO_PASS.join(', ')}]`)
  }
  if (!same(first.PASS_TO_PASS, second.candidate.PASS_TO_PASS)) {
    differences.push(`PASS_TO_PASS was [${first.PASS_TO_PASS.join(', ')}], now [${second.candidate.PASS_TO_PASS.join(', ')}]`)
  }
  return differences.length === 0 ? null : `the second harvest gave a different oracle: ${differences.join('; ')}`
}

/**
 * Draws a task set: walks the candidates in the seeded order, skips those in
 * `exclusions.json`, harvests every other one a second time and rejects it as
 * flaky when the oracle comes out different, keeps the first `count`, and
 * writes one task folder each with its prompt as `task.md`. Refuses (before
 * running anything) prompts that name a gold file, and (before writing
 * anything) when a selected candidate has no prompt. Writes
 * `<set>/selection.json` recording the whole walk.
 */
export async function select(options: SelectOptions): Promise<Selection> {
  const progress = options.progress ?? (() => undefined)
  const out = path.resolve(options.out)
  const count = options.count ?? 20
  if (!Number.isInteger(count) || count < 1) throw new SpecError(`--count: must be a whole number of at least 1, got ${options.count}`)
  const plan = await planDraw({ ...options, out })
  const existing = (await exists(out)) ? await listTaskDirs(out) : []
  if (existing.length > 0 && options.replace !== true) {
    throw new SpecError(
      `${options.out} already holds ${existing.length} task folder(s) (${existing.map((dir) => path.basename(dir)).join(', ')}): ` +
        'remove them, or pass --replace to have select remove them',
    )
  }
  const { loaded, order, exclusions, used } = plan
  const usedHere = order.filter((candidate) => used.has(candidate.fix)).length
  const several = loaded.sources.length > 1
  progress(
    `walk order (seed ${plan.seed}${options.stratify === 'repository' ? ', stratified by repository' : ''}): ${order.length} candidate(s)` +
      (several ? ` of ${loaded.sources.length} repositories (${loaded.sources.map((source) => source.name).join(', ')})` : '') +
      `, ${exclusions.size} excluded` +
      (plan.usedSets.length === 0 ? '' : `, ${usedHere} used by ${plan.usedSets.map((set) => set.dir).join(', ')}`) +
      `; keeping ${count}`,
  )
  // The walk harvests the first `count` candidates it may use before any other, so a prompt missing for one of
  // them is known now: say so before running any test (one missing further on is found after the walk).
  const reachedFirst = order.filter((candidate) => !exclusions.has(candidate.fix) && !used.has(candidate.fix)).slice(0, count)
  const unprompted = reachedFirst.filter((candidate) => !plan.prompts.has(candidate.fix))
  if (unprompted.length > 0) {
    throw new ProblemsError(
      `${unprompted.length} of the ${reachedFirst.length} candidate(s) the walk reaches first have no prompt; write them (symptom only) and run select again (no test was run):`,
      unprompted.map((candidate) => ({
        file: path.join(options.prompts ?? path.join(options.out, 'prompts'), `${candidate.fix.slice(0, 12)}.md`),
        message: `missing: "${candidate.subject}"`,
      })),
    )
  }

  return withSources(loaded, options, async (contexts) => {
    const contextOf = (candidate: Candidate) => contexts.get(sourceOf(loaded, candidate).name)!
    const walked = await walkCandidates(order, exclusions, used, count, options.jobs ?? defaultJobs(), contextOf, progress)
    const walk = several ? walked.map((entry, i) => ({ ...entry, repository: sourceOf(loaded, order[i]!).name })) : walked
    const selected = walk.filter((entry) => entry.status === 'selected')
    if (selected.length < count) progress(`only ${selected.length} of the ${count} requested candidate(s) remain after exclusions and the flaky check`)

    const missing = selected.filter((entry) => !plan.prompts.has(entry.fix))
    if (missing.length > 0) {
      throw new ProblemsError(
        `${missing.length} selected candidate(s) have no prompt; write them (symptom only) and run select again:`,
        missing.map((entry) => ({ file: path.join(options.prompts ?? path.join(options.out, 'prompts'), `${entry.fix.slice(0, 12)}.md`), message: `missing: "${entry.subject}"` })),
      )
    }

    for (const dir of existing) await rm(dir, { recursive: true, force: true })
    await mkdir(out, { recursive: true })
    const byFix = new Map(loaded.data.candidates.map((candidate) => [candidate.fix, candidate]))
    const tasks: string[] = []
    const finalWalk: WalkEntry[] = []
    for (const entry of walk) {
      if (entry.status !== 'selected') {
        finalWalk.push(entry)
        continue
      }
      const candidate = byFix.get(entry.fix)!
      const { source, repository, rule } = contextOf(candidate)
      const dependencies = candidate.dependencies ?? source.dependencies
      const name = await writeTaskFolder({
        setDir: out,
        index: tasks.length + 1,
        candidate,
        prompt: plan.prompts.get(entry.fix)!.text,
        allow: plan.prompts.get(entry.fix)!.allow,
        repo: source.repo,
        repositoryName: source.name,
        repository,
        rule,
        testCommand: source.test_command,
        ...(dependencies === undefined ? {} : { dependencies }),
      })
      tasks.push(name)
      finalWalk.push({ ...entry, task: name })
    }
    const selection: Selection = {
      seed: plan.seed,
      count,
      ...(options.stratify === undefined ? {} : { stratify: options.stratify }),
      candidates: relativePosix(out, loaded.file),
      candidatesSha256: sha256(await readFile(loaded.file)),
      exclusions: plan.exclusionsFile === null ? null : relativePosix(out, path.resolve(plan.exclusionsFile)),
      ...(plan.usedSets.length === 0 ? {} : { excludedTaskSets: plan.usedSets.map((set) => ({ dir: relativePosix(out, path.resolve(set.dir)), tasks: set.tasks })) }),
      walk: finalWalk,
      tasks,
    }
    await writeFile(path.join(out, 'selection.json'), `${JSON.stringify(selection, null, 2)}\n`)
    progress(`${tasks.length} task folder(s) written to ${options.out}`)
    return selection
  })
}

/** What the walk needs of a candidate's repository: it opened, its rule, and the setup its candidates are harvested again with. */
interface SourceContext {
  readonly source: CandidateSource
  readonly repository: OpenRepository
  readonly rule: HarvestRule
  readonly setup: HarvestSetup
}

/** Opens every repository of the candidates file (each with its scratch folder, all removed whatever happens) and runs `work` with them by name. */
async function withSources<T>(
  loaded: LoadedCandidates,
  options: Pick<SelectOptions, 'timeoutMs' | 'signal'>,
  work: (contexts: ReadonlyMap<string, SourceContext>) => Promise<T>,
  contexts = new Map<string, SourceContext>(),
): Promise<T> {
  const source = loaded.sources[contexts.size]
  if (source === undefined) return work(contexts)
  return withRepositoryScratch(source.repo, 'select', async (repository, workDir) => {
    const rule = ruleFromRecord(source.rule)
    const candidates = loaded.data.candidates.filter((candidate) => sourceOf(loaded, candidate) === source)
    const setup: HarvestSetup = {
      repo: source.repo,
      repository,
      rule,
      testCommand: source.test_command,
      timeoutMs: options.timeoutMs ?? 300_000,
      workDir,
      oracle: await harvestOracle(workDir),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(source.dependencies !== undefined
        ? { dependencies: await harvestDependencies(source.dependencies, workDir) }
        : candidates.some((candidate) => candidate.dependencies !== undefined)
          ? { dependencies: await harvestDependencies('auto', workDir) }
          : {}),
    }
    return withSources(loaded, options, work, new Map([...contexts, [source.name, { source, repository, rule, setup }]]))
  })
}

/**
 * The walk: in order, excluded candidates and those an earlier task set used
 * are skipped and the others are harvested again, `jobs` at a time, until
 * `count` have the same oracle twice.
 */
async function walkCandidates(
  order: readonly Candidate[],
  exclusions: ReadonlyMap<string, Exclusion>,
  used: ReadonlyMap<string, UsedTask>,
  count: number,
  jobs: number,
  contextOf: (candidate: Candidate) => SourceContext,
  progress: (line: string) => void,
): Promise<WalkEntry[]> {
  const walk: WalkEntry[] = []
  let selected = 0
  let position = 0
  const label = (candidate: Candidate) => `[${String(walk.length + 1).padStart(String(order.length).length)}] ${candidate.fix.slice(0, 10)} ${candidate.subject}`
  while (position < order.length && selected < count) {
    // The next window: excluded candidates up to `jobs` ones to harvest again.
    const window: Candidate[] = []
    let end = position
    const skipped = (candidate: Candidate) => exclusions.has(candidate.fix) || used.has(candidate.fix)
    while (end < order.length && window.filter((c) => !skipped(c)).length < jobs) window.push(order[end++]!)
    const toHarvest = window.filter((candidate) => !skipped(candidate))
    const seconds = await mapPool(toHarvest, jobs, async (candidate) => {
      const { repository, setup } = contextOf(candidate)
      const roles = await commitRoles(repository.git, candidate.base, candidate.fix, setup.rule)
      return harvestCommit(setup, { fix: candidate.fix, base: candidate.base, date: candidate.date, subject: candidate.subject, roles })
    })
    const secondOf = new Map(toHarvest.map((candidate, i) => [candidate.fix, seconds[i]!]))
    for (const candidate of window) {
      if (selected >= count) break
      const exclusion = exclusions.get(candidate.fix)
      if (exclusion !== undefined) {
        progress(`${label(candidate)} → excluded (${exclusion.reason}): ${exclusion.why}`)
        walk.push({ fix: candidate.fix, subject: candidate.subject, status: 'excluded', reason: `(${exclusion.reason}) ${EXCLUSION_REASONS[exclusion.reason]}: ${exclusion.why}` })
        continue
      }
      const earlier = used.get(candidate.fix)
      if (earlier !== undefined) {
        progress(`${label(candidate)} → used by ${earlier.set} (${earlier.task}): skipped`)
        walk.push({ fix: candidate.fix, subject: candidate.subject, status: 'used', reason: `already a task of ${earlier.set} (${earlier.task})` })
        continue
      }
      const flaky = flakyReason(candidate, secondOf.get(candidate.fix)!)
      if (flaky !== null) {
        progress(`${label(candidate)} → rejected as flaky: ${flaky}`)
        walk.push({ fix: candidate.fix, subject: candidate.subject, status: 'flaky', reason: flaky })
        continue
      }
      selected++
      progress(`${label(candidate)} → same oracle twice: task ${selected}`)
      walk.push({ fix: candidate.fix, subject: candidate.subject, status: 'selected' })
    }
    position = end
  }
  for (const candidate of order.slice(walk.length)) walk.push({ fix: candidate.fix, subject: candidate.subject, status: 'not reached' })
  return walk
}
