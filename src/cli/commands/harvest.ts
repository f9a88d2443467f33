import { InvalidArgumentError, Option, type Command } from 'commander'
import { harvest, defaultJobs } from '../../curate/harvest/harvest.ts'
import { DEFAULT_SUBJECT, buildRule } from '../../curate/harvest/rule.ts'
import { DEFAULT_SOURCE_GLOBS, DEFAULT_TEST_GLOBS } from '../../tasks/test-paths.ts'
import type { DependencyRecipe } from '../../workspace/dependencies.ts'
import { SpecError } from '../../errors.ts'
import { ExitCode } from '../exit-code.ts'

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value]

function positiveInteger(name: string) {
  return (value: string): number => {
    const number = Number(value)
    if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1, got "${value}"`)
    return number
  }
}

interface HarvestCliOptions {
  repo: string
  out: string
  testCommand: string
  since?: string
  subject: string
  source?: string[]
  tests?: string[]
  maxSourceFiles: number
  rev: string
  jobs: number
  timeout: number
  logs?: string
  prepare: string
  prepareInput?: string[]
  mount: string
  name?: string
  append?: boolean
}

/** A relative, `/`-separated path inside the repository (no `..`), or the option's error. */
function repositoryPath(option: string, value: string): string {
  if (value.startsWith('/') || value.includes('\\') || value.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new InvalidArgumentError(`${option} must be a relative path inside the repository, "/"-separated, without "." or ".." parts, got "${value}"`)
  }
  return value
}

/** The dependency recipe of `--prepare`: auto (each commit's lockfile), none, or a command with its inputs. */
function harvestRecipe(options: HarvestCliOptions): { dependencies?: DependencyRecipe | 'auto' } {
  if (options.prepare === 'none') return {}
  if (options.prepare === 'auto') {
    if (options.prepareInput !== undefined) throw new SpecError('--prepare-input needs --prepare with a command: "auto" reads the inputs each lockfile names')
    return { dependencies: 'auto' }
  }
  return { dependencies: { prepare: options.prepare, inputs: options.prepareInput ?? ['package.json', 'package-lock.json'], mount: options.mount } }
}

/** `task-outcome harvest`: mines a repository's history for bug-fix tasks whose own tests are the oracle. */
export function registerHarvest(program: Command): void {
  program
    .command('harvest')
    .description(
      "Find candidate tasks in a repository's history. One pass over the history finds the commits the rule accepts " +
        '(subject matches --subject, committed on or after --since, 1 to --max-source-files changed source files, at least ' +
        "one changed test file). For each, the parent is exported as a one-commit repository, the fix's test files are laid " +
        'over it and --test-command runs before and after the fix; FAIL_TO_PASS and PASS_TO_PASS come from the JUnit reports. ' +
        'A commit without a FAIL_TO_PASS test is dropped with its reason. Writes the candidates file (--out) and one harvest ' +
        'log per commit beside it; progress goes to stderr.',
    )
    .requiredOption('--repo <path>', 'the repository: a folder, or a git bundle')
    .requiredOption('--out <file>', 'the candidates file to write, e.g. tasks/pilot/candidates.json')
    .requiredOption(
      '--test-command <cmd>',
      "the test command, run with bash in the repository copy: {tests} becomes the fix's test files, {junit} the JUnit XML " +
        'report path, e.g. "python -m pytest --junitxml={junit} {tests}" or ' +
        '"node --test --test-reporter=junit --test-reporter-destination={junit} {tests}"',
    )
    .option('--since <date>', 'only commits committed on or after this date (YYYY-MM-DD, 00:00 UTC; or an ISO 8601 time)')
    .option('--subject <regex>', 'the subject must match this regular expression (case-insensitive)', DEFAULT_SUBJECT)
    .option('--source <glob>', `a glob of source files (repeatable; default ${DEFAULT_SOURCE_GLOBS.join(' ')})`, collect)
    .option('--tests <glob>', `a glob of test files (repeatable; default ${DEFAULT_TEST_GLOBS.join(' ')})`, collect)
    .option('--max-source-files <n>', 'the most source files a fix may change', positiveInteger('--max-source-files'), 3)
    .option('--rev <revision>', 'the revision whose history is scanned', 'HEAD')
    .addOption(new Option('--jobs <n>', 'commits harvested at once').argParser(positiveInteger('--jobs')).default(defaultJobs()))
    .option('--timeout <seconds>', 'limit for each run of the test command', positiveInteger('--timeout'), 300)
    .option('--logs <dir>', 'where the harvest logs go (default: beside --out, <name>.logs/)')
    .option(
      '--prepare <cmd>',
      'how to make the dependency folder the tests need: "auto" (the default) installs what each parent commit\'s lockfile ' +
        'names with its package manager (package-lock.json or npm-shrinkwrap.json: npm ci; pnpm-lock.yaml: pnpm; yarn.lock: ' +
        'yarn classic or berry; the pinned CLIs, from the cache you filled once), "none" prepares nothing, and any other ' +
        'value is a command run by bash without network in a folder holding only the --prepare-input files of each parent ' +
        'commit, e.g. "npm ci --offline --ignore-scripts"; the folder is mounted read-only at --mount for the tests, the ' +
        "agent and the oracle, and select records it in each task's metadata.json (dependencies)",
      'auto',
    )
    .option(
      '--prepare-input <file>',
      'a repository file --prepare reads (repeatable; default package.json and package-lock.json)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), repositoryPath('--prepare-input', value)],
    )
    .option('--mount <dir>', 'the folder --prepare makes, relative to the repository root', (value: string) => repositoryPath('--mount', value), 'node_modules')
    .option('--name <name>', "the repository's name in the candidates file, tasks, records and the report (default: its folder's or bundle's name)")
    .option('--append', 'add this repository to the candidates file --out already holds (a task set drawn from several repositories)')
    .action(async (options: HarvestCliOptions) => {
      const file = await harvest({
        repo: options.repo,
        rev: options.rev,
        rule: buildRule({
          subject: options.subject,
          since: options.since ?? null,
          ...(options.source === undefined ? {} : { source: options.source }),
          ...(options.tests === undefined ? {} : { tests: options.tests }),
          maxSourceFiles: options.maxSourceFiles,
        }),
        testCommand: options.testCommand,
        ...harvestRecipe(options),
        out: options.out,
        jobs: options.jobs,
        timeoutMs: options.timeout * 1000,
        ...(options.logs === undefined ? {} : { logDir: options.logs }),
        ...(options.name === undefined ? {} : { name: options.name }),
        append: options.append === true,
        progress: (line) => process.stderr.write(`${line}\n`),
      })
      for (const candidate of file.candidates) {
        process.stdout.write(
          `candidate ${candidate.fix.slice(0, 10)}  ${candidate.FAIL_TO_PASS.length} FAIL_TO_PASS  ${candidate.PASS_TO_PASS.length} PASS_TO_PASS  ${candidate.subject}\n`,
        )
        for (const note of candidate.notes) process.stdout.write(`  note: ${note}\n`)
      }
      for (const dropped of file.dropped) process.stdout.write(`dropped   ${dropped.fix.slice(0, 10)}  ${dropped.subject}: ${dropped.reason}\n`)
      for (const rejected of file.rejected) process.stdout.write(`rejected  ${rejected.fix.slice(0, 10)}  ${rejected.subject}: ${rejected.reason}\n`)
      if (file.candidates.length === 0) {
        process.stderr.write('no candidate found: see the reasons above and the harvest logs; check --subject, --since, --source, --tests and --prepare\n')
        throw new ExitCode(1)
      }
    })
}
