import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * Where the analysis's documents reach the disk. The analysis is pure (it
 * returns each file's text); these write them beside `runs.jsonl`, so the
 * reporter and the CLI write reports one way.
 */

/** What the analysis concluded, as far as writing it goes. */
export interface ConclusionToWrite {
  /** The verdict block for the terminal. */
  readonly text: string
  /** The report files by name (`report.json`, …), or null when there is no verdict to write. */
  readonly reportFiles: Readonly<Record<string, string>> | null
}

/** What was written, and the terminal text naming it. */
export interface WrittenConclusion {
  /** The files written, absolute; none without a verdict. */
  readonly files: readonly string[]
  /** The verdict block and, when files were written, a line naming them. */
  readonly text: string
}

/** Writes the report files into `outDir` (same bytes for the same runs: nothing in them depends on time or machine). */
export function writeConclusion(outDir: string, conclusion: ConclusionToWrite): WrittenConclusion {
  const files: string[] = []
  if (conclusion.reportFiles !== null) {
    mkdirSync(outDir, { recursive: true })
    for (const [name, text] of Object.entries(conclusion.reportFiles)) {
      const file = path.join(outDir, name)
      writeFileSync(file, text)
      files.push(file)
    }
  }
  const where = files.length === 0 ? [] : [`  report: ${files.map((file) => path.basename(file)).join(', ')} in ${outDir}`]
  return { files, text: [conclusion.text, ...where].join('\n') }
}

/** A skill experiment's summary files: `summary.json` beside the records, and one history line per completed sweep. */
export interface SweepFiles {
  /** The project root, for the paths printed. */
  readonly root: string
  readonly outDir: string
  /** The summary as the analysis built it. */
  readonly summary: unknown
  /** The history file and its new line, when the sweep completed with new runs; else null. */
  readonly history: { readonly file: string; readonly line: unknown } | null
}

/** Writes summary.json (and appends the history line); returns the terminal lines naming them. */
export function writeSweepFiles(sweep: SweepFiles): string {
  const summaryFile = path.join(sweep.outDir, 'summary.json')
  writeFileSync(summaryFile, `${JSON.stringify(sweep.summary, null, 2)}\n`)
  const written = [`  summary: ${path.relative(sweep.root, summaryFile)}`]
  if (sweep.history !== null) {
    mkdirSync(path.dirname(sweep.history.file), { recursive: true })
    appendFileSync(sweep.history.file, `${JSON.stringify(sweep.history.line)}\n`)
    written.push(`  history: one line appended to ${path.relative(sweep.root, sweep.history.file)}`)
  }
  return written.join('\n')
}
