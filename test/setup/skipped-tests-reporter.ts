import { readFileSync } from 'node:fs'
import type { Reporter, TestCase, TestModule } from 'vitest/node'

// CI's list of skipped tests (.ci/run adds this reporter): every skipped test with its reason, so no skip is
// silent. The reason is the note of `ctx.skip(note)`, or what a title says after "skipped" (the suite's
// convention for `skipIf`: `… — SKIPPED: <why>`). A skip without a reason fails the run; so does one whose reason
// is not in the allowlist that TASK_OUTCOME_ALLOWED_SKIPS names (one regular expression a line; # comments), when
// set: CI installs every tool the suite needs, so only the skips it cannot avoid (a Node or git version) may stay.

/** The reason a skipped test gives, or null when it gives none. */
export function skipReason(test: Pick<TestCase, 'fullName'> & { result(): { state: string; note?: string | undefined } }): string | null {
  const note = test.result().note
  if (note !== undefined && note.trim() !== '') return note.trim()
  const said = /\bskipped\b[\s:—-]*(.+)$/i.exec(test.fullName)
  return said === null ? null : said[1]!.replace(/\)$/, '').trim()
}

/** The allowlist's patterns, from the file TASK_OUTCOME_ALLOWED_SKIPS names (null when unset). */
function allowedSkips(): RegExp[] | null {
  const file = process.env.TASK_OUTCOME_ALLOWED_SKIPS
  if (file === undefined || file === '') return null
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => new RegExp(line))
}

/** Prints each skipped test and its reason at the end of the run; fails the run for a skip without one, or one CI does not allow. */
export default class SkippedTestsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const allowed = allowedSkips()
    const skipped = testModules.flatMap((module) => [...module.children.allTests('skipped')].map((test) => ({ file: module.relativeModuleId, test })))
    const lines: string[] = []
    const wrong: string[] = []
    for (const { file, test } of skipped) {
      const reason = skipReason(test)
      const where = `${file} > ${test.fullName}`
      if (reason === null) wrong.push(`skipped without a reason (say why in the title, or ctx.skip(why)): ${where}`)
      else if (allowed !== null && !allowed.some((pattern) => pattern.test(reason))) wrong.push(`skipped for a reason CI should not have (${reason}): ${where}`)
      lines.push(`  ${file} > ${test.fullName}\n      reason: ${reason ?? '(none given)'}`)
    }
    console.log(`\n== skipped tests: ${skipped.length}${lines.length > 0 ? `\n${lines.join('\n')}` : ''}`)
    if (wrong.length > 0) {
      for (const line of wrong) console.error(`skipped-tests: ${line}`)
      process.exitCode = 1
    }
  }
}
