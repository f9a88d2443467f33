import type { CanaryFramework } from './canaries/framework.ts'
import { ID_SEPARATOR, NESTING_SEPARATOR, normalizeIdPart } from './junit/ids.ts'
import type { JUnitResults, TestStatus } from './junit/results.ts'

/**
 * The second channel: the runner's own account of the tests, besides its
 * JUnit report, on a pipe the harness holds (its stdout or stderr). A report
 * can be forged by code in the test process (a file renamed over it, a
 * reporter patched); the lines the runner already wrote to the harness's pipe
 * cannot be taken back. The oracle asks each runner for a per-test stream it
 * can parse (node's TAP, Vitest's flat TAP and pytest's `-rA`
 * summary on stdout) and requires it to agree with the report on every
 * listed test.
 */

/** One of node's `--test-reporter` or `--test-reporter-destination` flags in a command: its value and where it stands. */
interface NodeFlag {
  readonly value: string
  readonly start: number
  readonly end: number
}

// A value as shellQuote writes one: bare, or in single quotes (a quote inside as '\'').
const NODE_FLAG = /(?<=^|\s)--test-reporter(-destination)?(?:=|\s+)((?:'[^']*'|\\'|[^\s'"\\])+)(?=\s|$)/g

/**
 * node --test's reporters paired with their destinations, as node pairs them
 * (the n-th reporter writes to the n-th destination); null when a flag of
 * either kind is written in a form this does not read (quoted, say), so the
 * pairs cannot be trusted.
 */
function nodeReporters(command: string): Array<{ reporter: NodeFlag; destination: NodeFlag | undefined }> | null {
  const reporters: NodeFlag[] = []
  const destinations: NodeFlag[] = []
  for (const match of command.matchAll(NODE_FLAG)) {
    const flag = { value: match[2]!, start: match.index, end: match.index + match[0].length }
    ;(match[1] === undefined ? reporters : destinations).push(flag)
  }
  const written = (pattern: RegExp) => [...command.matchAll(pattern)].length
  if (written(/--test-reporter(?!-destination)\b/g) !== reporters.length || written(/--test-reporter-destination\b/g) !== destinations.length) return null
  return reporters.map((reporter, i) => ({ reporter, destination: destinations[i] }))
}

const TEXT_REPORTERS = new Set(['spec', 'dot', 'tap'])
const STREAMS = new Set(['stdout', 'stderr'])

/** The command's own text reporter on one of the harness's pipes (spec, dot or TAP to stdout or stderr), if it has one. */
function nodeTextReporter(command: string): { reporter: NodeFlag; stream: 'stdout' | 'stderr' } | null {
  const pair = nodeReporters(command)?.find(({ reporter, destination }) => TEXT_REPORTERS.has(reporter.value) && STREAMS.has(destination?.value ?? ''))
  return pair === undefined ? null : { reporter: pair.reporter, stream: pair.destination!.value as 'stdout' | 'stderr' }
}

/**
 * node --test asked for TAP. A runner formats every test once per reporter, so
 * where the command already prints spec or dot to stdout or stderr, that
 * reporter becomes TAP (on the same stream, still readable); only a command
 * without one gets TAP added, on stderr.
 */
function nodeWithTap(command: string): string {
  const own = nodeTextReporter(command)
  if (own === null) return command.replace(/(^|\s)--test(?=\s|$)/, '$1--test --test-reporter=tap --test-reporter-destination=stderr')
  return `${command.slice(0, own.reporter.start)}--test-reporter=tap${command.slice(own.reporter.end)}`
}

/** Which of its pipes a command made by `withSecondChannel` has node's TAP on. */
function nodeTapStream(commandLine: string): 'stdout' | 'stderr' {
  const own = nodeTextReporter(commandLine)
  return own !== null && own.reporter.value === 'tap' ? own.stream : 'stderr'
}

/** The test command with the runner asked for its per-test stream as well. */
export function withSecondChannel(framework: CanaryFramework, command: string): string {
  switch (framework) {
    case 'node-test':
      return nodeWithTap(command)
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

/** The statuses the runner's own stream gives, by the same ids the JUnit parser builds; `commandLine` is the command `withSecondChannel` made, as run. */
export function readSecondChannel(
  framework: CanaryFramework,
  output: { readonly stdout: string; readonly stderr: string; readonly commandLine: string },
  cwd: string,
): Map<string, TestStatus> {
  switch (framework) {
    case 'node-test':
      return readNodeTap(output[nodeTapStream(output.commandLine)])
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
