import { Command, CommanderError } from 'commander'
import { TaskOutcomeError } from '../errors.ts'
import { harnessVersion, unsupportedNodeMessage } from '../version.ts'
import { commands } from './commands/index.ts'
import { ExitCode } from './exit-code.ts'

export { ExitCode } from './exit-code.ts'

/**
 * Builds the `task-outcome` program with the command `argv` names registered, or every command when it names none
 * (the program's --help, `help <command>`, a misspelled name: commander then lists or suggests them all).
 */
export async function createProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('task-outcome')
    .description(
      'Does a coding-agent add-on make the agent finish real tasks for less, without finishing fewer of them?\n' +
        'Experiments run as Vitest projects (`npx vitest run --project <experiment>`); these commands prepare and judge them.',
    )
    .version(harnessVersion)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
  const named = argv[2]
  const loaders = named !== undefined && Object.hasOwn(commands, named) ? [commands[named]!] : Object.values(commands)
  for (const register of await Promise.all(loaders.map((load) => load()))) register(program)
  return program
}

/** Runs the CLI; returns the exit status (errors are printed, not thrown). */
export async function main(argv: readonly string[]): Promise<number> {
  const unsupported = unsupportedNodeMessage()
  if (unsupported !== null) {
    process.stderr.write(`${unsupported}\n`)
    return 1
  }
  try {
    await (await createProgram(argv)).parseAsync([...argv])
    return 0
  } catch (error) {
    if (error instanceof ExitCode) return error.status
    if (error instanceof CommanderError) return error.exitCode
    if (error instanceof TaskOutcomeError) {
      process.stderr.write(`task-outcome: ${error.message}\n`)
      return 1
    }
    throw error
  }
}
