import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import type { Command } from 'commander'
import { DataError } from '../../errors.ts'
import { verifyTranscriptArchive } from '../../runs/archive/verify.ts'
import { readRuns, runsFilePath } from '../../runs/store.ts'
import { ExitCode } from '../exit-code.ts'

/** `task-outcome verify-archive <archive> <runs.jsonl>`: every transcript in the archive against the SHA-256 runs.jsonl records. */
export function registerVerifyArchive(program: Command): void {
  program
    .command('verify-archive')
    .description(
      'Check a transcript archive made by `task-outcome publish` against runs.jsonl: every recorded run that names a ' +
        'transcript must have it in the archive with the SHA-256 its record holds, the manifest must agree, and nothing ' +
        'else may be in the archive. Exit 0 when every entry checks; exit 1 naming the first mismatch, missing or extra file.',
    )
    .argument('<archive>', 'the .tar.gz publish wrote')
    .argument('<runs>', "runs.jsonl, or the experiment's output folder holding it")
    .addHelpText('after', '\nExample:\n  npx task-outcome verify-archive pilot-transcripts.tar.gz bench/task_outcome/pilot/runs.jsonl\n')
    .action(async (archive: string, runs: string) => {
      if (!existsSync(archive)) throw new DataError(`${archive}: no such file`)
      const runsFile = existsSync(runs) && statSync(runs).isDirectory() ? runsFilePath(runs) : runs
      if (!existsSync(runsFile)) throw new DataError(`${runsFile}: no such file`)
      const { records } = readRuns(path.resolve(runsFile))
      const result = await verifyTranscriptArchive(path.resolve(archive), records)
      if (result.problems.length > 0) {
        const [first, ...rest] = result.problems
        process.stderr.write(
          `task-outcome: ${archive} does not match ${runsFile}: ${first!.message}` +
            (rest.length === 0
              ? '\n'
              : `\n  and ${rest.length} more problem(s):\n${rest
                  .slice(0, 20)
                  .map((problem) => `  - ${problem.message}`)
                  .join('\n')}\n`),
        )
        throw new ExitCode(1)
      }
      process.stdout.write(`${archive}: all ${result.checked} transcript(s) match ${runsFile} (SHA-256), and nothing else is in the archive\n`)
    })
}
