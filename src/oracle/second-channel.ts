import type { CanaryFramework } from './canaries/framework.ts'
import { ID_SEPARATOR, NESTING_SEPARATOR, normalizeIdPart } from './junit/ids.ts'
import type { JUnitResults, TestStatus } from './junit/results.ts'

/**
 * The second channel: the runner's own account of the tests, besides its
 * JUnit report, on a pipe the harness holds (its stdout or stderr). A report
 * can be forged by code in the test process (a file renamed over it, a
 * reporter patched); the lines the runner already wrote to the harness's pipe
 * cannot be taken back. The oracle asks each runner for a per-test stream it
 * can parse (node's TAP on stderr, Vitest's flat TAP and pytest's `-rA`
 * summary on stdout) and requires it to agree with the report on every
 * listed test.
 */

/** The test command with the runner asked for its per-test stream as well. */
export function withSecondChannel(framework: CanaryFramework, command: string): string {
  switch (framework) {
    case 'node-test':
      return command.replace(/(^|\s)--test(?=\s|$)/, '$1--test --test-reporter=tap --test-reporter-destination=stderr')
    case 'vitest':
      return command.replace(/(\bvitest(?:\.mjs)?(?:\s+run)?)(?=\s|$)/, '$1 --reporter=tap-flat')
    case 'pytest':
      return command.replace(/(\bpytest)(?=\s|$)/, '$1 -rA')
  }
}

/** Undoes TAP's escapes in a test name (`\#`, `\\`). */
function unescapeTap(name: string): string {
  return name.replace(/\\([\\#])/g, '$1')
}

const TAP_LINE = /^( *)(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/
const TAP_SUBTEST = /^( *)# Subtest: (.*)$/

/** node --test's TAP (nested by four spaces): ids as the JUnit parser builds them, suites joined by ` > `. */
function readNodeTap(text: string): Map<string, TestStatus> {
  const tests = new Map<string, TestStatus>()
  const suites: string[] = []
  for (const line of text.split('\n')) {
    const subtest = TAP_SUBTEST.exec(line)
    if (subtest !== null) {
      const depth = subtest[1]!.length / 4
      suites.length = depth
      suites[depth] = unescapeTap(subtest[2]!)
      continue
    }
    const result = TAP_LINE.exec(line)
    if (result === null) continue
    const depth = result[1]!.length / 4
    if (!Number.isInteger(depth)) continue
    const id = [...suites.slice(0, depth), unescapeTap(result[3]!)].map((part) => normalizeIdPart(part)).join(NESTING_SEPARATOR)
    const status: TestStatus = result[4] !== undefined ? 'skipped' : result[2] === 'ok' ? 'passed' : 'failed'
    tests.set(id, worse(tests.get(id), status))
  }
  return tests
}

/** Vitest's flat TAP: `ok 1 - <file> > <suite> > <test>`, made into the JUnit parser's `<file>::<suite> > <test>`. */
function readVitestTap(text: string, cwd: string): Map<string, TestStatus> {
  const tests = new Map<string, TestStatus>()
  for (const line of text.split('\n')) {
    const result = TAP_LINE.exec(line.replace(/ # time=[\d.]+m?s$/, ''))
    if (result === null || result[1] !== '') continue
    const name = normalizeIdPart(unescapeTap(result[3]!), cwd)
    const cut = name.indexOf(NESTING_SEPARATOR)
    const id = cut < 0 ? name : `${name.slice(0, cut)}${ID_SEPARATOR}${name.slice(cut + NESTING_SEPARATOR.length)}`
    const status: TestStatus = result[4] !== undefined ? 'skipped' : result[2] === 'ok' ? 'passed' : 'failed'
    tests.set(id, worse(tests.get(id), status))
  }
  return tests
}

const PYTEST_LINE = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (.+)$/
// The node id before a ` - <message>` (a failure's, an XFAIL's or an XPASS's reason): up to the first ` - ` when no `[`
// comes before it, else through the `]` that ends the parameters, which may hold ` - ` themselves (`test_a[x - y]`).
const PYTEST_NODE_ID = /^(?:[^[]*?|[^[]*\[.*?\])(?= - |$)/

/** pytest's `-rA` short summary: `PASSED <node id>`, `FAILED <node id> - <message>`, `XPASS <node id> - <reason>`. */
function readPytestSummary(text: string): Map<string, TestStatus> {
  const tests = new Map<string, TestStatus>()
  const start = text.lastIndexOf('short test summary info')
  if (start < 0) return tests
  for (const line of text.slice(start).split('\n')) {
    const result = PYTEST_LINE.exec(line)
    if (result === null) continue
    const [, word, rest] = result
    if (word === 'SKIPPED') continue
    const id = normalizeIdPart(word === 'PASSED' ? rest! : (PYTEST_NODE_ID.exec(rest!)?.[0] ?? rest!))
    const status: TestStatus = word === 'PASSED' || word === 'XPASS' ? 'passed' : word === 'XFAIL' ? 'skipped' : 'failed'
    tests.set(id, worse(tests.get(id), status))
  }
  return tests
}

function worse(previous: TestStatus | undefined, status: TestStatus): TestStatus {
  if (previous === undefined) return status
  if (previous === 'failed' || status === 'failed') return 'failed'
  return previous === 'skipped' || status === 'skipped' ? 'skipped' : 'passed'
}

/** The statuses the runner's own stream gives, by the same ids the JUnit parser builds. */
export function readSecondChannel(framework: CanaryFramework, output: { readonly stdout: string; readonly stderr: string }, cwd: string): Map<string, TestStatus> {
  switch (framework) {
    case 'node-test':
      return readNodeTap(output.stderr)
    case 'vitest':
      return readVitestTap(output.stdout, cwd)
    case 'pytest':
      return readPytestSummary(output.stdout)
  }
}

/**
 * Where the runner's stream and its report disagree about the listed tests
 * (one line each; empty when they agree): a test one says passed and the
 * other does not. When the report lists failures the exit status must not be
 * 0. A stream that names no test at all is a disagreement too (the runner
 * was asked for it).
 */
export function compareChannels(results: JUnitResults, channel: ReadonlyMap<string, TestStatus>, listed: readonly string[], exitCode: number | null): string[] {
  const problems: string[] = []
  if (channel.size === 0) return ["the runner's own stream names no test, though its report does"]
  for (const id of listed) {
    const reported = results.tests.get(id) ?? 'absent'
    const streamed = channel.get(id) ?? 'absent'
    if ((reported === 'passed') !== (streamed === 'passed')) problems.push(`"${id}" is ${reported} in the report but ${streamed} in the runner's own stream`)
  }
  const failures = [...results.tests.values()].filter((status) => status === 'failed').length
  if (failures > 0 && exitCode === 0) problems.push(`the report lists ${failures} failed test(s) but the runner exited 0`)
  return problems
}
