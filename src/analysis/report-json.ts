import type { AnalysisReport } from './report.ts'

/**
 * report.json's text: two-space indented, keys in the report's construction
 * order, numbers in JavaScript's shortest round-trip form, a final newline.
 * JSON has no infinity, so ±∞ (an interval unbounded because a control cost
 * nothing) is written as the string "Infinity" / "-Infinity". No timestamps:
 * the same runs give the same bytes.
 */
export function reportJson(report: AnalysisReport): string {
  return `${JSON.stringify(
    report,
    (_key, value: unknown) => {
      if (typeof value !== 'number' || Number.isFinite(value)) return value
      if (Number.isNaN(value)) throw new Error('reportJson: a NaN reached the report; this is a bug in the analysis')
      return value > 0 ? 'Infinity' : '-Infinity'
    },
    2,
  )}\n`
}
