/**
 * What a test command's own output says went wrong, in the words a person
 * fixing it needs: a command the shell could not find, or a test file that
 * could not be collected because a module it imports is missing. Harvest puts
 * this first in a drop reason, where "exited 127" or "no FAIL_TO_PASS test"
 * alone would send the person looking in the wrong place.
 */

/** The output of one test command run that the causes are read from. */
export interface CommandOutput {
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
}

/** bash's words for a command it cannot find: `bash: line 1: python: command not found`, `/bin/bash: python: command not found`. */
const NOT_FOUND = /^(?:[^\n:]*bash: )?(?:line \d+: )?([^\n:]+): command not found$/m

/**
 * The command the shell could not find (exit 127 only, the status bash gives
 * it), or null. A 127 without bash's line still names the status.
 */
export function commandNotFound(run: CommandOutput): string | null {
  if (run.exitCode !== 127) return null
  const match = NOT_FOUND.exec(run.stderr) ?? NOT_FOUND.exec(run.stdout)
  return match === null ? 'a command (exit 127)' : match[1]!.trim()
}

/** pytest's `ModuleNotFoundError: No module named 'x'`; Node's and Vitest's `Cannot find package 'x'` / `Cannot find module 'x'`. */
const MISSING_MODULE = /(No module named '[^'\n]+'|Cannot find (?:package|module) '[^'\n]+')/

/** The first missing-module message in the run's output (`No module named 'freezegun'`), or null. */
export function missingModule(run: CommandOutput): string | null {
  return (MISSING_MODULE.exec(run.stdout) ?? MISSING_MODULE.exec(run.stderr))?.[1] ?? null
}
