import { createRequire } from 'node:module'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Command } from 'commander'
import { AGENT_PACKAGES } from '../../agents/packages.ts'
import { SpecError } from '../../errors.ts'
import { EXAMPLE_SET, writeExample } from '../init/example.ts'
import { experimentTemplate } from '../init/experiment-template.ts'
import { ignoreArtifacts } from '../init/gitignore.ts'
import { addToVitestConfig, type ConfigChange } from '../init/vitest-config.ts'

const SET_NAME = /^[a-z0-9][a-z0-9-]*$/

function describeConfig(change: ConfigChange, root: string): string[] {
  const file = path.relative(root, change.file)
  switch (change.kind) {
    case 'written':
      return [`wrote ${file} (the experiments as Vitest projects, with the task-outcome reporter)`]
    case 'edited':
      return [`added the experiments to the projects of ${file}`]
    case 'already':
      return [`${file} already names this experiment file`]
    case 'manual':
      return [
        `${file} was left as it is (${change.why}); add these two lines to it, the import at the top and the projects inside test.projects (in an async config: defineConfig(async () => ({ … }))):`,
        ...change.lines.map((line) => `    ${line}`),
      ]
  }
}

/** Whether the project can resolve the package (from its own folder, as Vitest will). */
function installed(root: string, entry: string): boolean {
  try {
    createRequire(path.join(root, 'package.json')).resolve(entry)
    return true
  } catch {
    return false
  }
}

/** `task-outcome init [--set pilot]`: an experiment template, the Vitest projects, the git-ignored artifacts. */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'Start experiments in this project: write tasks/<set>/experiment.ts (a pilot and its smoke test, importing ' +
        'task-outcome) and tasks/example/ (three small tasks and an experiment against the scripted model: no account, ' +
        'no network), add them to the Vitest config (vitest.config.ts, or .mts in a CommonJS package; or print the ' +
        'lines to add when the config cannot be edited safely), git-ignore node_modules and the per-run artifacts, ' +
        'and print the next commands.',
    )
    .option('--set <name>', "the task set (the folder under tasks/ and the experiments' names)", 'pilot')
    .action((options: { set: string }) => {
      const root = process.cwd()
      if (!SET_NAME.test(options.set)) {
        throw new SpecError(`--set ${JSON.stringify(options.set)}: use lowercase letters, digits and dashes (it names a folder and a Vitest project)`)
      }
      const set = options.set
      if (set === EXAMPLE_SET) throw new SpecError(`--set ${EXAMPLE_SET}: that is the folder of the example init writes; choose another name`)
      const experimentFile = path.join(root, 'tasks', set, 'experiment.ts')
      const relative = path.relative(root, experimentFile)
      if (existsSync(experimentFile)) {
        throw new SpecError(`${relative} exists already; init never overwrites an experiment (edit it, or choose another --set)`)
      }
      mkdirSync(path.dirname(experimentFile), { recursive: true })
      writeFileSync(experimentFile, experimentTemplate(set))
      const example = writeExample(root)
      const lines = [`wrote ${relative} (experiments "${set}" and "${set}-smoke")`]
      lines.push(
        example
          ? `wrote tasks/${EXAMPLE_SET}/ (experiment "${EXAMPLE_SET}": Claude Code against the scripted model on three small tasks, no account needed)`
          : `tasks/${EXAMPLE_SET}/ was left as it is`,
      )
      lines.push(...describeConfig(addToVitestConfig(root, set, example), root))
      const ignored = ignoreArtifacts(root)
      if (ignored.length > 0) lines.push(`git-ignored ${ignored.join(', ')} in .gitignore`)
      const claude = AGENT_PACKAGES['claude-code']
      if (!installed(root, claude.entry)) lines.push(`the templates run Claude Code: npm install --save-dev ${claude.name}@${claude.version}`)
      lines.push(
        '',
        'Next:',
        `  npx vitest run --project ${EXAMPLE_SET}     # the scripted model: a verdict in a minute, no account`,
        `  npx task-outcome harvest --repo . --out tasks/${set}/candidates.json --test-command '<your test command with {tests} and {junit}>'`,
        `  npx task-outcome select --candidates tasks/${set}/candidates.json --out tasks/${set} --seed <a seed you write down> --count 20`,
        `  npx vitest run --project ${set}-smoke`,
      )
      process.stdout.write(`${lines.join('\n')}\n`)
    })
}
