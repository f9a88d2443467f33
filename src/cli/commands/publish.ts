import path from 'node:path'
import type { Command } from 'commander'
import { publishExperiment } from '../publish/publish.ts'

interface PublishCliOptions {
  claims: string
  archive?: string
  demo?: boolean
}

/** `task-outcome publish <output folder>`: the claim's entry in claims.json and the transcript archive. */
export function registerPublish(program: Command): void {
  program
    .command('publish')
    .description(
      "Publish an experiment's result, whatever the verdict. Refuses (exit 1, naming what) when runs.jsonl does not read " +
        'back intact, spec.json is missing, a planned run is missing, or a transcript is missing or does not hash to its record. ' +
        'Otherwise it packs every transcript with a manifest of SHA-256s into a reproducible .tar.gz (check it with ' +
        '`task-outcome verify-archive`), writes report.json, report.md and report.html beside runs.jsonl, and adds the ' +
        "claim's entry to claims.json (replacing the entry of the same experiment and spec hash): the claim, the verdict, " +
        'the stage label, the spec file and hash, the SHA-256 of runs.jsonl, the report, the command that reproduces it, ' +
        'the date and the versions. Only a confirmatory run is marked a product claim; a pilot is labelled pilot, and demo, ' +
        'example and smoke runs say what they are. Transcripts stay out of git: publish the archive separately.',
    )
    .argument('<output>', "the experiment's output folder (e.g. bench/task_outcome/pilot)")
    .option('--claims <file>', 'the claims file to add the entry to', 'site/claims.json')
    .option('--archive <file>', 'where the transcript archive goes (default: <output>/artifacts/transcripts.tar.gz, git-ignored)')
    .option('--demo', 'publish runs made against the scripted model as a demo entry (refused without it)')
    .addHelpText('after', '\nExample:\n  npx task-outcome publish bench/task_outcome/pilot --claims site/claims.json --archive pilot-transcripts.tar.gz\n')
    .action(async (output: string, options: PublishCliOptions) => {
      const root = process.cwd()
      const outDir = path.resolve(output)
      const archiveFile = path.resolve(options.archive ?? path.join(outDir, 'artifacts', 'transcripts.tar.gz'))
      const result = await publishExperiment({
        outDir,
        claimsFile: path.resolve(options.claims),
        archiveFile,
        root,
        date: new Date().toISOString().slice(0, 10),
        ...(options.demo === true ? { demo: true } : {}),
      })
      const { entry } = result
      process.stdout.write(
        [
          `published ${entry.experiment} (spec ${entry.specSha256.slice(0, 12)}) — ${entry.label.tag}${entry.productClaim ? '' : ', not a product claim'}`,
          `  verdict: ${entry.verdict}`,
          ...entry.comparisons.map((comparison) => `  ${comparison.sentence}`),
          `  ${result.replaced ? 'replaced the entry in' : 'added an entry to'} ${path.relative(root, path.resolve(options.claims)) || options.claims}`,
          `  runs: ${entry.runs.file} (${entry.runs.records} run(s), sha256 ${entry.runs.sha256})`,
          `  archive: ${entry.archive?.file} (${entry.archive?.transcripts} transcript(s), sha256 ${entry.archive?.sha256})`,
          `  check it: npx task-outcome verify-archive ${entry.archive?.file} ${entry.runs.file}`,
          `  reproduce: ${entry.command}`,
          '',
        ].join('\n'),
      )
    })
}
