import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { classifyFix } from '../../oracle/junit/outcome.ts'
import { commandNotFound, missingModule } from '../../oracle/failure-cause.ts'
import { runTestCommand, type TestCommandRun } from '../../oracle/test-command.ts'
import { harnessGit } from '../../workspace/git.ts'
import type { OpenRepository } from '../../workspace/repository.ts'
import { copyTemplate, parentTemplate } from '../../workspace/template.ts'
import type { HarvestRule } from './rule.ts'
import type { EligibleCommit } from './scan.ts'
import { runnerTestFiles } from '../../tasks/test-paths.ts'
import { prepareDependencies, type DependencyRecipe } from '../../workspace/dependencies.ts'
import { detectRecipe } from '../../workspace/lockfiles.ts'

/** What harvesting a commit needs: the repository, the rule, the test command and a scratch folder. */
export interface HarvestSetup {
  /** The repository as the task will name it (absolute path of a folder or bundle): the template cache key. */
  readonly repo: string
  readonly repository: OpenRepository
  readonly rule: HarvestRule
  /** The test command, with `{tests}` and `{junit}`. */
  readonly testCommand: string
  /** Limit for each run of the test command. */
  readonly timeoutMs: number
  /** Scratch space; each commit works in a folder of its own below it, removed when done. */
  readonly workDir: string
  readonly signal?: AbortSignal
  /** How the test command runs: the oracle's PATH and, where the machine has one, its sandbox (`harvestOracle`). */
  readonly oracle: { readonly pathVariable: string; readonly sandbox?: { readonly readOnly: readonly string[] } }
  /**
   * The dependency folder the tests need, prepared from each parent's input
   * files and linked into its copies: one recipe for every commit, or `auto`,
   * the recipe each parent's own lockfile asks for.
   */
  readonly dependencies?: { readonly recipe: DependencyRecipe | 'auto'; readonly pathVariable: string; readonly sandboxed: boolean }
}

/** A harvested candidate task: the commit, its files, and its oracle. */
export interface HarvestedCandidate {
  readonly fix: string
  readonly base: string
  readonly date: string
  readonly subject: string
  readonly gold_files: string[]
  readonly test_files: string[]
  readonly FAIL_TO_PASS: string[]
  readonly PASS_TO_PASS: string[]
  /** Tests of the fix's test files that do not pass even after the fix (left out of the oracle). */
  readonly not_passing_after: string[]
  /** Things a person choosing tasks should look at (e.g. every FAIL_TO_PASS test absent before the fix). */
  readonly notes: string[]
  /** The recipe the parent's lockfile asked for (`auto` only). */
  readonly dependencies?: DependencyRecipe
}

/** How harvesting one commit ended; `log` is its harvest log either way. */
export type CommitHarvest =
  | { readonly kind: 'candidate'; readonly candidate: HarvestedCandidate; readonly log: string }
  | { readonly kind: 'dropped'; readonly reason: string; readonly log: string }

/** The fix's non-test changes as a binary-safe patch against its parent: what `gold` applies. */
export async function goldPatch(repository: OpenRepository, commit: Pick<EligibleCommit, 'base' | 'fix' | 'roles'>): Promise<string> {
  return repository.git.raw(['diff', '--binary', '--no-renames', '--no-color', '--no-ext-diff', commit.base, commit.fix, '--', ...commit.roles.goldPaths])
}

/** One file's bytes at a commit. */
export async function readBlob(repository: OpenRepository, commit: string, file: string): Promise<Buffer> {
  return repository.git.showBuffer([`${commit}:${file}`])
}

/** Writes the fix's versions of its test files into `dir`. */
async function placeTests(repository: OpenRepository, fix: string, testFiles: readonly string[], dir: string): Promise<void> {
  for (const file of testFiles) {
    const target = path.join(dir, file)
    await rm(target, { recursive: true, force: true })
    await mkdir(path.dirname(target), { recursive: true })
    await writeFile(target, await readBlob(repository, fix, file))
  }
}

/**
 * Why a run gave no results, its plainest cause first: a command the shell
 * could not find, or a module a test file imports that is not installed.
 */
function noResultsReason(label: 'before' | 'after', run: TestCommandRun): string {
  const reason = `the test command produced no results ${label} the fix: ${run.noResults}`
  const command = commandNotFound(run)
  if (command !== null) return `command not found: ${command} (${reason}; check --test-command and the PATH the tests run with)`
  const missing = missingModule(run)
  return missing === null ? reason : `collection error: ${missing} (${reason})`
}

function describeRun(label: string, run: TestCommandRun): string {
  const ended = run.timedOut ? 'timed out' : `exited ${run.exitCode ?? 'on a signal'}`
  const counts =
    run.results === null
      ? `no results: ${run.noResults}`
      : `${run.results.tests.size} test(s) in a ${run.results.format} report: ${[...run.results.tests].map(([id, status]) => `\n    ${status.padEnd(7)} ${id}`).join('')}`
  return [
    `## ${label}`,
    `$ ${run.commandLine}`,
    `${ended} after ${(run.durationMs / 1000).toFixed(2)} s; ${counts}`,
    '--- stdout',
    run.stdout.trimEnd(),
    '--- stderr',
    run.stderr.trimEnd(),
    '',
  ].join('\n')
}

/**
 * Harvests one commit: the parent exported as a one-commit repository (the
 * task's template) with the fix's test files laid over it, the test command
 * run there (before), then again with the fix's non-test changes applied
 * (after); FAIL_TO_PASS and PASS_TO_PASS come from the two JUnit reports. A
 * commit without a FAIL_TO_PASS test, or whose runs produced no results, is
 * dropped with its reason. The log writes the commit's scratch folder as `<work>`.
 */
export async function harvestCommit(setup: HarvestSetup, commit: EligibleCommit): Promise<CommitHarvest> {
  const lines: string[] = [
    `# harvest of ${commit.fix}`,
    `subject: ${commit.subject}`,
    `parent:  ${commit.base}`,
    `date:    ${commit.date}`,
    `gold files: ${commit.roles.sourceFiles.join(', ')}`,
    `gold patch paths: ${commit.roles.goldPaths.join(', ')}`,
    `test files: ${commit.roles.testFiles.join(', ')}`,
    ...(commit.roles.deletedTests.length > 0 ? [`deleted test files (not in the oracle): ${commit.roles.deletedTests.join(', ')}`] : []),
    '',
  ]
  const dropped = (reason: string): CommitHarvest => {
    lines.push(`DROPPED: ${reason}`)
    return { kind: 'dropped', reason, log: `${lines.join('\n')}\n` }
  }
  const work = await mkdtemp(path.join(setup.workDir, `${commit.fix.slice(0, 12)}-`))
  try {
    // A template of its own, removed with the commit's scratch folder: a harvest of a long history would
    // otherwise leave one template per candidate in the shared cache.
    const template = await parentTemplate(setup.repo, commit.base, { repository: setup.repository, root: path.join(work, 'template') })
    const testFiles = commit.roles.testFiles
    let recipe: DependencyRecipe | null = null
    let detected: DependencyRecipe | undefined
    if (setup.dependencies?.recipe === 'auto') {
      const found = await detectRecipe(template)
      if (found.kind === 'problem') return dropped(found.reason)
      if (found.kind === 'recipe') {
        recipe = detected = found.recipe
        lines.push(`lockfile: ${found.lockfile.file} (${found.lockfile.manager})`)
      } else lines.push('lockfile: none needed (no package.json with dependencies)')
    } else if (setup.dependencies !== undefined) recipe = setup.dependencies.recipe
    const dependencies =
      recipe === null || setup.dependencies === undefined
        ? null
        : await prepareDependencies(recipe, template, {
            pathVariable: setup.dependencies.pathVariable,
            sandboxed: setup.dependencies.sandboxed,
            timeoutMs: setup.timeoutMs,
            where: commit.fix.slice(0, 12),
          })
    if (dependencies !== null) lines.push(`dependencies: \`${recipe!.prepare}\` → ${dependencies.mount} (${dependencies.key})`, '')
    const runnerFiles = runnerTestFiles(testFiles, setup.rule.testGlobs)
    const run = async (label: 'before' | 'after'): Promise<TestCommandRun> => {
      const dir = path.join(work, label)
      await mkdir(dir)
      await copyTemplate(template, dir)
      if (label === 'after') {
        const patchFile = path.join(work, 'gold.patch')
        await writeFile(patchFile, await goldPatch(setup.repository, commit))
        await harnessGit(dir).raw(['apply', '--whitespace=nowarn', patchFile])
      }
      await placeTests(setup.repository, commit.fix, testFiles, dir)
      const result = await runTestCommand({
        command: setup.testCommand,
        cwd: dir,
        testFiles: runnerFiles,
        junitFile: path.join(work, `${label}.xml`),
        timeoutMs: setup.timeoutMs,
        home: path.join(work, `${label}-home`),
        dependencies,
        pathVariable: setup.oracle.pathVariable,
        ...(setup.oracle.sandbox === undefined ? {} : { sandbox: setup.oracle.sandbox }),
        ...(setup.signal === undefined ? {} : { signal: setup.signal }),
      })
      lines.push(describeRun(`${label} the fix (in <work>/${label})`, result).split(work).join('<work>'))
      return result
    }
    const before = await run('before')
    const after = await run('after')
    if (after.results === null) return dropped(noResultsReason('after', after))
    if (before.results === null) return dropped(noResultsReason('before', before))
    const split = classifyFix(before.results, after.results)
    lines.push(
      `FAIL_TO_PASS (${split.failToPass.length}):${split.failToPass.map((id) => `\n  ${id}`).join('')}`,
      `PASS_TO_PASS (${split.passToPass.length}):${split.passToPass.map((id) => `\n  ${id}`).join('')}`,
      `not passing after the fix (${split.notPassingAfter.length}):${split.notPassingAfter.map((id) => `\n  ${id}`).join('')}`,
    )
    if (split.failToPass.length === 0) {
      const missing = missingModule(after)
      if (missing !== null) {
        return dropped(
          `collection error: ${missing} (a test file cannot be loaded even after the fix, so no test fails before it and passes after; install it where the tests run)`,
        )
      }
      return dropped('no FAIL_TO_PASS test: every test that passes after the fix already passed before it')
    }
    const notes: string[] = []
    if (split.absentBefore.length === split.failToPass.length) {
      notes.push('every FAIL_TO_PASS test was absent before the fix (its test file did not load): the tests may import a name the fix introduced (exclusion reason c)')
    }
    if (split.skippedBefore.length > 0) notes.push(`${split.skippedBefore.length} test(s) skipped before the fix and passing after it are left out of the oracle`)
    if (commit.roles.deletedTests.length > 0) notes.push(`the fix deletes test file(s) ${commit.roles.deletedTests.join(', ')}; the oracle leaves them as they were`)
    const candidate: HarvestedCandidate = {
      fix: commit.fix,
      base: commit.base,
      date: commit.date,
      subject: commit.subject,
      gold_files: commit.roles.sourceFiles,
      test_files: testFiles,
      FAIL_TO_PASS: split.failToPass,
      PASS_TO_PASS: split.passToPass,
      not_passing_after: split.notPassingAfter,
      notes,
      ...(detected === undefined ? {} : { dependencies: detected }),
    }
    lines.push(`CANDIDATE: ${split.failToPass.length} FAIL_TO_PASS, ${split.passToPass.length} PASS_TO_PASS`, ...notes.map((note) => `note: ${note}`))
    return { kind: 'candidate', candidate, log: `${lines.join('\n')}\n` }
  } catch (error) {
    if (setup.signal?.aborted) throw error
    return dropped(`harvesting failed: ${(error as Error).message.trim()}`)
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}
