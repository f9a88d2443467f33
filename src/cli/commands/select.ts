import { InvalidArgumentError, Option, type Command } from 'commander'
import { sourceOf } from '../../curate/harvest/candidates-file.ts'
import { defaultJobs } from '../../curate/harvest/harvest.ts'
import { EXCLUSION_REASONS } from '../../curate/select/exclusions.ts'
import { planDraw, select } from '../../curate/select/select.ts'
import { DEFAULT_SELECTION_SEED } from '../../curate/select/shuffle.ts'

function wholeNumber(name: string, min: number) {
  return (value: string): number => {
    const number = Number(value)
    if (!Number.isSafeInteger(number) || number < min) throw new InvalidArgumentError(`${name} must be a whole number of at least ${min}, got "${value}"`)
    return number
  }
}

interface SelectCliOptions {
  candidates: string
  out: string
  seed: number
  count: number
  exclusions?: string
  prompts?: string
  jobs: number
  timeout: number
  replace?: boolean
  plan?: boolean
  excludeTasksOf: string[]
  stratify?: 'repository'
}

/** `task-outcome select`: the seeded draw of a task set from harvested candidates. */
export function registerSelect(program: Command): void {
  program
    .command('select')
    .description(
      'Draw a task set from a candidates file. Candidates, sorted by commit, are shuffled with --seed and walked in that ' +
        'order: those in exclusions.json are skipped (each with its reason), every other one is harvested a second time and ' +
        'rejected as flaky if its oracle differs, and the first --count that remain become task folders <NNN>-<slug>/ ' +
        '(task.md from the prompt, metadata.json, oracle/, solution/gold.patch). Prompts are named by commit ' +
        '(<prompts>/<commit prefix>.md) and must describe a symptom: a prompt naming a gold file (its path, file name or ' +
        `module name) is refused. Exclusion reasons: ${Object.entries(EXCLUSION_REASONS)
          .map(([key, text]) => `(${key}) ${text}`)
          .join('; ')}. ` +
        'Writes <out>/selection.json recording the walk.',
    )
    .requiredOption('--candidates <file>', 'the candidates file harvest wrote')
    .requiredOption('--out <dir>', 'the task set folder, e.g. tasks/pilot')
    .option('--seed <n>', 'the seed of the shuffle (seedrandom; see src/curate/select/shuffle.ts)', wholeNumber('--seed', 0), DEFAULT_SELECTION_SEED)
    .option('--count <n>', 'how many tasks to keep', wholeNumber('--count', 1), 20)
    .option('--exclusions <file>', 'the exclusions file (default: <out>/exclusions.json when present)')
    .option('--prompts <dir>', 'the prompts folder (default: <out>/prompts when present)')
    .addOption(new Option('--jobs <n>', 'candidates harvested again at once').argParser(wholeNumber('--jobs', 1)).default(defaultJobs()))
    .option('--timeout <seconds>', 'limit for each run of the test command', wholeNumber('--timeout', 1), 300)
    .option(
      '--exclude-tasks-of <set>',
      'skip the candidates an earlier task set used (repeatable: e.g. --exclude-tasks-of tasks/pilot): the confirmatory draw, by the same rule and seed, from tasks none of them used',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .addOption(new Option('--stratify <by>', 'repository: the repositories of a candidates file of several take turns in the seeded walk').choices(['repository']))
    .option('--replace', 'remove the task folders already in --out first (instead of refusing)')
    .option('--plan', 'only print the walk order with the exclusions and which candidates have prompts; run no tests, write nothing')
    .action(async (options: SelectCliOptions) => {
      const common = {
        candidates: options.candidates,
        out: options.out,
        seed: options.seed,
        ...(options.exclusions === undefined ? {} : { exclusions: options.exclusions }),
        ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
        excludeTasksOf: options.excludeTasksOf,
        ...(options.stratify === undefined ? {} : { stratify: options.stratify }),
      }
      if (options.plan === true) {
        const plan = await planDraw(common)
        process.stdout.write(`walk order for seed ${plan.seed} (${plan.order.length} candidates):\n`)
        plan.order.forEach((candidate, index) => {
          const exclusion = plan.exclusions.get(candidate.fix)
          const earlier = plan.used.get(candidate.fix)
          const state =
            exclusion !== undefined
              ? `excluded (${exclusion.reason})`
              : earlier !== undefined
                ? `used by ${earlier.set}`
                : plan.prompts.has(candidate.fix)
                  ? 'prompt ready'
                  : 'NO PROMPT'
          const repository = plan.loaded.sources.length > 1 ? `${sourceOf(plan.loaded, candidate).name}  ` : ''
          process.stdout.write(`${String(index + 1).padStart(3)}. ${candidate.fix.slice(0, 12)}  ${state.padEnd(14)}  ${repository}${candidate.subject}\n`)
        })
        return
      }
      const selection = await select({
        ...common,
        count: options.count,
        jobs: options.jobs,
        timeoutMs: options.timeout * 1000,
        replace: options.replace === true,
        progress: (line) => process.stderr.write(`${line}\n`),
      })
      for (const task of selection.tasks) process.stdout.write(`${task}\n`)
    })
}
