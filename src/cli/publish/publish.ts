import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { renderReportFiles } from '../../analysis/conclude.ts'
import { formatSeeds } from '../../analysis/format.ts'
import { analyzeRuns } from '../../analysis/report.ts'
import { DataError } from '../../errors.ts'
import { createTranscriptArchive } from '../../runs/archive/create.ts'
import { readRecordedSpec, specFilePath } from '../../runs/spec-file.ts'
import { readRuns, runsFilePath } from '../../runs/store.ts'
import { checkTranscripts } from '../../runs/transcripts.ts'
import { isScriptedModel } from '../../runs/versions.ts'
import { loadAnalysisInput, resolveInput } from '../commands/analysis-input.ts'
import { claimEntry, type ClaimEntry } from './claim.ts'
import { readClaims, upsertClaim, writeClaims } from './claims-file.ts'
import { sha256 } from '../../shared/sha256.ts'
import { runLabel } from '../../shared/run-label.ts'

/** What `publish` is asked to do. */
export interface PublishRequest {
  /** The experiment's output folder (runs.jsonl, spec.json). */
  readonly outDir: string
  /** The claims file to add the entry to. */
  readonly claimsFile: string
  /** Where the transcript archive goes. */
  readonly archiveFile: string
  /** Paths in the entry are written relative to this folder (the project root). */
  readonly root: string
  /** The publication day (UTC, `YYYY-MM-DD`). */
  readonly date: string
  /** Runs against the scripted model are published only as a demo entry, when asked. */
  readonly demo?: boolean
}

/** What `publish` did. */
export interface PublishResult {
  readonly entry: ClaimEntry
  readonly replaced: boolean
  readonly reportFiles: readonly string[]
}

/** A path inside the root as `a/b/c`, an outside one absolute. */
function shown(root: string, file: string): string {
  const relative = path.relative(root, file)
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/')
}

const LISTED = 10

/**
 * Publishes an experiment's result: refuses (a `DataError` naming what) when
 * runs.jsonl does not read (a broken line or chain), when spec.json is
 * missing, when any planned run is missing, or when any transcript is missing
 * or does not hash to its record; otherwise packs the transcripts into the
 * archive, writes the report files and adds (or replaces) the claim's entry
 * in the claims file, keyed by experiment and spec hash.
 */
export async function publishExperiment(request: PublishRequest): Promise<PublishResult> {
  const { outDir, root } = request
  if (!existsSync(outDir) || !statSync(outDir).isDirectory())
    throw new DataError(`${shown(root, outDir)}: no such output folder. Give the experiment's output folder (e.g. bench/task_outcome/pilot).`)
  const runsFile = runsFilePath(outDir)
  if (!existsSync(runsFile)) throw new DataError(`${shown(root, runsFile)}: no such file; nothing was recorded, so nothing can be published.`)
  const runsBytes = readFileSync(runsFile)
  const all = readRuns(runsFile).records
  const recorded = readRecordedSpec(outDir)
  if (recorded === undefined) {
    throw new DataError(`${shown(root, specFilePath(outDir))}: no such file. Publish needs the pre-registered spec the reporter keeps beside runs.jsonl.`)
  }
  const input = loadAnalysisInput(outDir)
  const { settings, expected } = resolveInput(input, {})
  const report = analyzeRuns(input.records, settings, expected)
  if (!report.complete) {
    const gaps = report.missingRuns.flatMap((gap) => gap.seeds.map((seed) => runLabel({ task: gap.task, arm: gap.arm, seed })))
    const unexpected = report.unexpectedRuns.map((gap) => `${gap.task} › ${gap.arm} › seed ${formatSeeds(gap.seeds)}`)
    const lines = [
      ...(gaps.length === 0
        ? []
        : [`${gaps.length} planned run(s) missing: ${gaps.slice(0, LISTED).join('; ')}${gaps.length > LISTED ? `; … and ${gaps.length - LISTED} more` : ''}`]),
      ...(unexpected.length === 0 ? [] : [`runs outside the plan: ${unexpected.slice(0, LISTED).join('; ')}`]),
      ...report.armsWithoutRuns.map((arm) => `arm ${arm} has no recorded runs`),
    ]
    throw new DataError(
      `${shown(root, outDir)} is incomplete, so it has no verdict and cannot be published: ${lines.join('. ')}. ` +
        `Run the missing runs (npx vitest run --project ${report.experiment}: recorded runs are skipped), then publish again.`,
    )
  }
  const problems = checkTranscripts(outDir, all)
  if (problems.length > 0) {
    throw new DataError(
      `${shown(root, outDir)}: ${problems.length} transcript(s) do not match runs.jsonl, so the archive could not be checked by anyone: ` +
        `${problems
          .slice(0, LISTED)
          .map((problem) => problem.message)
          .join('; ')}${problems.length > LISTED ? '; …' : ''}.`,
    )
  }
  const scripted = input.records.some((record) => isScriptedModel(record.versions?.model))
  if (scripted && request.demo !== true) {
    throw new DataError(
      `${shown(root, runsFile)}: its runs were made against the scripted model (versions.model scripted:…), so its numbers demonstrate the harness and are no claim; ` +
        'pass --demo to publish it as a demo entry.',
    )
  }
  const archive = await createTranscriptArchive({ experiment: report.experiment, outDir, runsBytes, records: all, archiveFile: request.archiveFile })
  const reportFiles: string[] = []
  for (const [name, text] of Object.entries(renderReportFiles(report, input.records))) {
    const file = path.join(outDir, name)
    writeFileSync(file, text)
    reportFiles.push(file)
  }
  const entry = claimEntry(report, {
    specSha256: recorded.specSha256,
    specFile: { file: recorded.source?.file ?? null, exportName: recorded.source?.exportName ?? null, record: shown(root, specFilePath(outDir)) },
    changeLog: input.changeLog,
    runs: { file: shown(root, runsFile), sha256: sha256(runsBytes), records: all.length },
    analysed: input.records,
    outDir: shown(root, outDir),
    archive: { file: shown(root, archive.file), sha256: archive.sha256, transcripts: archive.transcripts },
    date: request.date,
  })
  const { claims, replaced } = upsertClaim(readClaims(request.claimsFile), entry)
  writeClaims(request.claimsFile, claims)
  return { entry, replaced, reportFiles }
}
