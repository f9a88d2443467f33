import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { checkTestCommand } from '../../oracle/test-command.ts'
import { harvestCommit, type CommitHarvest, type HarvestSetup } from './candidate.ts'
import {
  appendRepository,
  candidateSources,
  formatCandidatesFile,
  readCandidatesFile,
  relativePosix,
  ruleRecord,
  type LoadedCandidates,
  type SingleRepositoryFile,
} from './candidates-file.ts'
import { ProblemsError, SpecError } from '../../errors.ts'
import { RepositoryNameSchema } from '../../tasks/repository-name.ts'
import { mapPool } from '../pool.ts'
import { withRepositoryScratch } from '../scratch.ts'
import type { HarvestRule } from './rule.ts'
import { scanHistory } from './scan.ts'
import { oracleToolchain } from '../../oracle/toolchain.ts'
import { probeSandbox, toolchainMounts } from '../../sandbox/index.ts'
import type { DependencyRecipe } from '../../workspace/dependencies.ts'
import { templateRoot } from '../../workspace/template.ts'

/** Everything `harvest` needs. */
export interface HarvestOptions {
  /** The repository: a folder or a git bundle. */
  readonly repo: string
  /** The revision whose history is scanned (default HEAD). */
  readonly rev?: string
  readonly rule: HarvestRule
  /** The test command, with `{tests}` and `{junit}`. */
  readonly testCommand: string
  /** The dependency folder the tests need (`--prepare`), made from each parent's input files without network; `auto`: the recipe each parent's lockfile asks for. */
  readonly dependencies?: DependencyRecipe | 'auto'
  /** Where the candidates file goes. */
  readonly out: string
  /** The repository's portable name in the candidates file, tasks and records (default: its folder's or bundle's name). */
  readonly name?: string
  /** Add this repository's candidates to the candidates file `out` already holds (of one repository or several) instead of writing a new one. */
  readonly append?: boolean
  /** Where the per-candidate harvest logs go (default: beside `out`, `<name>.logs/`). */
  readonly logDir?: string
  /** Commits harvested at once (default: the number of CPUs, at most 4). */
  readonly jobs?: number
  /** Limit for each run of the test command (default 5 minutes). */
  readonly timeoutMs?: number
  /** Progress lines (the CLI writes them to stderr). */
  readonly progress?: (line: string) => void
  readonly signal?: AbortSignal
}

/**
 * How harvest and select run the test command: the way a run's oracle does,
 * with the oracle's resolved toolchain first on PATH (no `node_modules/.bin`
 * of the project) and, where this machine has a sandbox, inside one without
 * network that sees the toolchain's folders read-only and the prepared
 * dependency folder read-only (so no runner's cache is ever written into
 * it): a test that passes here is a test the runs can judge.
 */
export async function harvestOracle(workDir: string): Promise<HarvestSetup['oracle']> {
  const exclude = [templateRoot(), workDir, process.cwd()]
  const toolchain = await oracleToolchain(process.env.PATH, exclude)
  const sandboxed = await probeSandbox().then(
    () => true,
    () => false,
  )
  return {
    pathVariable: toolchain.path,
    ...(sandboxed ? { sandbox: { readOnly: [...new Set([...toolchainMounts(toolchain.path, exclude), ...toolchain.mounts])] } } : {}),
  }
}

/**
 * How harvest and select prepare a dependency folder: with the oracle's
 * toolchain (no `node_modules/.bin` of the project on its PATH), in a sandbox
 * without network where this machine has one.
 */
export async function harvestDependencies(
  recipe: DependencyRecipe | 'auto',
  workDir: string,
): Promise<{ recipe: DependencyRecipe | 'auto'; pathVariable: string; sandboxed: boolean }> {
  const toolchain = await oracleToolchain(process.env.PATH, [templateRoot(), workDir, process.cwd()])
  return {
    recipe,
    pathVariable: toolchain.path,
    sandboxed: await probeSandbox().then(
      () => true,
      () => false,
    ),
  }
}

/** `--append` needs a candidates file to add to: a missing one is named as such, any other problem passes through. */
function refuseAppend(out: string): (error: unknown) => LoadedCandidates {
  return (error) => {
    if (error instanceof ProblemsError && error.problems.some((problem) => problem.message.startsWith('no such file'))) {
      throw new SpecError(`--append: ${out} does not exist yet: harvest the first repository without --append`)
    }
    throw error
  }
}

/** The default number of commits harvested at once. */
export function defaultJobs(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()))
}

/** The default log folder of a candidates file: `candidates.json` → `candidates.logs/`. */
export function defaultLogDir(out: string): string {
  return path.join(path.dirname(out), `${path.basename(out, path.extname(out))}.logs`)
}

function short(subject: string): string {
  return subject.length > 60 ? `${subject.slice(0, 57)}…` : subject
}

/**
 * Mines a repository's history for candidate tasks: one pass over the history
 * finds the commits the rule accepts, then each is harvested (before and after
 * the fix, in a bounded pool) and kept when it has a FAIL_TO_PASS test.
 * Writes the candidates file (with `append`, the one `out` holds with this
 * repository's entries added) and one harvest log per commit; returns this
 * repository's harvest.
 */
export async function harvest(options: HarvestOptions): Promise<SingleRepositoryFile> {
  checkTestCommand(options.testCommand, '--test-command')
  const progress = options.progress ?? (() => undefined)
  const repo = path.resolve(options.repo)
  const out = path.resolve(options.out)
  const logDir = path.resolve(options.logDir ?? defaultLogDir(out))
  const rev = options.rev ?? 'HEAD'
  if (options.name !== undefined && !RepositoryNameSchema.safeParse(options.name).success) {
    throw new SpecError(`--name: "${options.name}" is not a repository name: use letters, digits, ".", "_" and "-", starting with a letter or digit`)
  }
  const existing = options.append === true ? await readCandidatesFile(out).catch(refuseAppend(out)) : null
  return withRepositoryScratch(repo, 'harvest', async (repository, workDir) => {
    const scan = await scanHistory(repository.git, options.rule, rev)
    progress(
      `scanned ${scan.scanned} commit(s): ${scan.matched} subject(s) match ${options.rule.subject}, ` + `${scan.eligible.length} pass the rule, ${scan.rejected.length} rejected`,
    )
    const jobs = options.jobs ?? defaultJobs()
    if (scan.eligible.length > 0) progress(`harvesting ${scan.eligible.length} commit(s), ${jobs} at a time`)
    const setup: HarvestSetup = {
      repo,
      repository,
      rule: options.rule,
      testCommand: options.testCommand,
      timeoutMs: options.timeoutMs ?? 300_000,
      workDir,
      oracle: await harvestOracle(workDir),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.dependencies === undefined ? {} : { dependencies: await harvestDependencies(options.dependencies, workDir) }),
    }
    const width = String(scan.eligible.length).length
    const results = await mapPool(
      scan.eligible,
      jobs,
      async (commit) => {
        const started = performance.now()
        const result = await harvestCommit(setup, commit)
        return { result, seconds: (performance.now() - started) / 1000 }
      },
      ({ result, seconds }, index, done) => {
        const commit = scan.eligible[index]!
        const outcome =
          result.kind === 'candidate' ? `${result.candidate.FAIL_TO_PASS.length} FAIL_TO_PASS, ${result.candidate.PASS_TO_PASS.length} PASS_TO_PASS` : `dropped: ${result.reason}`
        progress(`[${String(done).padStart(width)}/${scan.eligible.length}] ${commit.fix.slice(0, 10)} ${short(commit.subject)} → ${outcome} (${seconds.toFixed(1)} s)`)
      },
    )
    await mkdir(logDir, { recursive: true })
    const written = new Set<string>()
    const logFor = async (fix: string, harvested: CommitHarvest): Promise<string> => {
      const name = `${fix.slice(0, 12)}.log`
      written.add(name)
      await writeFile(path.join(logDir, name), harvested.log)
      return relativePosix(path.dirname(out), path.join(logDir, name))
    }
    const file: SingleRepositoryFile = {
      format: 1,
      ...(options.name === undefined ? {} : { repository: options.name }),
      repo: relativePosix(path.dirname(out), repo),
      rev,
      rule: ruleRecord(options.rule),
      test_command: options.testCommand,
      ...(options.dependencies === undefined || options.dependencies === 'auto'
        ? {}
        : { dependencies: { prepare: options.dependencies.prepare, inputs: [...options.dependencies.inputs], mount: options.dependencies.mount } }),
      scanned: scan.scanned,
      matched: scan.matched,
      candidates: [],
      dropped: [],
      rejected: scan.rejected,
    }
    for (const [index, { result }] of results.entries()) {
      const commit = scan.eligible[index]!
      const log = await logFor(commit.fix, result)
      if (result.kind === 'candidate') {
        const { dependencies, ...candidate } = result.candidate
        file.candidates.push({
          ...candidate,
          ...(dependencies === undefined ? {} : { dependencies: { prepare: dependencies.prepare, inputs: [...dependencies.inputs], mount: dependencies.mount } }),
          log,
        })
      } else file.dropped.push({ fix: commit.fix, date: commit.date, subject: commit.subject, reason: result.reason, log })
    }
    const whole = existing === null ? file : appendRepository(existing.data, file, path.dirname(out))
    // Logs of commits this harvest did not keep would describe another harvest (those of the repositories appended to stay).
    const kept = new Set([...whole.candidates, ...whole.dropped].map((entry) => path.resolve(path.dirname(out), entry.log)))
    for (const name of await readdir(logDir)) {
      if (name.endsWith('.log') && !written.has(name) && !kept.has(path.join(logDir, name))) await rm(path.join(logDir, name), { force: true })
    }
    await mkdir(path.dirname(out), { recursive: true })
    await writeFile(out, formatCandidatesFile(whole))
    progress(
      `${file.candidates.length} candidate(s), ${file.dropped.length} dropped, ${file.rejected.length} rejected → ${path.relative(process.cwd(), out) || out}` +
        (existing === null ? '' : ` (appended: ${whole.candidates.length} candidate(s) of ${candidateSources(whole, path.dirname(out)).length} repositories)`),
    )
    return file
  })
}
