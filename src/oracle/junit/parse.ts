import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { DataError } from '../../errors.ts'
import { decodeXmlEntities, joinId, NESTING_SEPARATOR, normalizeIdPart, pytestNodeId } from './ids.ts'
import { worseStatus, type JUnitFormat, type JUnitResults, type TestStatus } from './results.ts'

/** What the parser needs to know about the run that wrote the report. */
export interface ParseJUnitOptions {
  /** The folder the tests ran in: absolute paths under it become relative. */
  readonly cwd?: string
  /** The test files given to the runner (repository paths): pytest class names are turned back into node ids with them. */
  readonly testFiles?: readonly string[]
}

interface XmlNode {
  readonly [key: string]: unknown
}

const ARRAY_TAGS = new Set(['testsuite', 'testcase', 'failure', 'error', 'skipped'])

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  commentPropName: false,
  ignoreDeclaration: true,
  processEntities: true,
  isArray: (name) => ARRAY_TAGS.has(name),
})

function attr(node: XmlNode, name: string): string | undefined {
  const value = node[`@_${name}`]
  return typeof value === 'string' ? value : undefined
}

function children(node: XmlNode, tag: string): XmlNode[] {
  const value = node[tag]
  return Array.isArray(value) ? (value as XmlNode[]) : []
}

/** One `<testcase>` with the `<testsuite>` names above it (outermost first). */
interface RawCase {
  readonly node: XmlNode
  readonly suites: readonly string[]
  readonly file: string | undefined
}

function collectCases(suite: XmlNode, suites: readonly string[], file: string | undefined, out: RawCase[]): void {
  for (const node of children(suite, 'testcase')) out.push({ node, suites, file: attr(node, 'file') ?? file })
  for (const inner of children(suite, 'testsuite')) {
    collectCases(inner, [...suites, attr(inner, 'name') ?? ''], attr(inner, 'file') ?? file, out)
  }
}

function statusOf(node: XmlNode): TestStatus {
  if (children(node, 'failure').length > 0 || children(node, 'error').length > 0) return 'failed'
  // node --test also marks a failed case with a `failure` attribute.
  if (attr(node, 'failure') !== undefined) return 'failed'
  if (children(node, 'skipped').length > 0) return 'skipped'
  return 'passed'
}

/**
 * node --test's classname: "test" up to Node 22; from Node 24 a nested
 * test's classname is the names of the suites around it joined by "."
 * (`money.currency`; top-level tests keep "test").
 */
function isNodeTestClassname(raw: RawCase): boolean {
  const classname = attr(raw.node, 'classname')
  return classname === 'test' || (raw.suites.length > 0 && classname === raw.suites.join('.'))
}

/**
 * Which runner wrote the report. pytest names its suite "pytest"; Vitest
 * names the root "vitest tests"; jest-junit names it "jest tests" and repeats
 * the test's title in its classname; node --test writes the constant
 * classname "test" and no root name.
 */
function detectFormat(root: XmlNode | undefined, suites: readonly XmlNode[], cases: readonly RawCase[]): JUnitFormat {
  const rootName = root === undefined ? undefined : attr(root, 'name')
  if (rootName === 'pytest tests' || suites.some((suite) => attr(suite, 'name') === 'pytest')) return 'pytest'
  if (rootName === 'vitest tests') return 'vitest'
  if (rootName === 'jest tests') return 'jest'
  if (rootName === undefined && cases.length > 0 && cases.every((c) => isNodeTestClassname(c))) return 'node'
  if (cases.length > 0 && cases.every((c) => attr(c.node, 'classname') === attr(c.node, 'name'))) return 'jest'
  return 'generic'
}

function caseId(format: JUnitFormat, raw: RawCase, options: ParseJUnitOptions): string {
  const cwd = options.cwd
  const norm = (text: string | undefined) => normalizeIdPart(text ?? '', cwd)
  const name = norm(attr(raw.node, 'name'))
  const classname = norm(attr(raw.node, 'classname'))
  const file = raw.file === undefined ? '' : norm(raw.file)
  switch (format) {
    case 'pytest':
      return pytestNodeId(classname, name, options.testFiles ?? [])
    case 'node': {
      // The nesting comes from the suites (top-level <testsuite> elements are describe blocks, not
      // files). Node 24 adds each case's file; Node 22 has none, so the id leaves it out and a task
      // harvested on one Node is judged alike on the other. A test file that failed to load is
      // reported as one case named by its absolute path (made relative above).
      const suites = raw.suites.map((suite) => norm(decodeXmlEntities(suite))).filter((suite) => suite !== '')
      return [...suites, norm(decodeXmlEntities(attr(raw.node, 'name') ?? ''))].join(NESTING_SEPARATOR)
    }
    case 'vitest':
      // The classname is the test file; a file that failed to load is one case named by the file.
      return name === classname ? classname : joinId(classname, name)
    case 'jest':
      // jest-junit's default templates write "{classname} {title}" as both classname and name.
      return joinId(file, classname === name ? '' : classname, name)
    case 'generic':
      return joinId(file, classname, name)
  }
}

/**
 * Parses a JUnit XML report (pytest, `node --test --test-reporter=junit`,
 * Vitest, jest-junit, or any runner close enough) into normalised test ids
 * and statuses. A case with `<failure>` or `<error>` failed, one with
 * `<skipped>` was skipped, any other passed. Throws a `DataError` when the
 * text is not well-formed XML or not a JUnit report; a report without any
 * test case parses to an empty map (the caller decides that it measured
 * nothing).
 */
export function parseJUnit(xml: string, options: ParseJUnitOptions = {}): JUnitResults {
  const valid = XMLValidator.validate(xml)
  if (valid !== true) {
    throw new DataError(`the JUnit report is not well-formed XML (line ${valid.err.line}, column ${valid.err.col}): ${valid.err.msg}`)
  }
  const document = parser.parse(xml) as XmlNode
  const testsuitesValue = document.testsuites
  const root = typeof testsuitesValue === 'object' && testsuitesValue !== null ? (testsuitesValue as XmlNode) : undefined
  const topSuites = root === undefined ? children(document, 'testsuite') : children(root, 'testsuite')
  if (root === undefined && topSuites.length === 0 && testsuitesValue === undefined) {
    throw new DataError('the JUnit report has neither <testsuites> nor <testsuite> at its root')
  }
  const cases: RawCase[] = []
  if (root !== undefined) {
    // node --test puts top-level test cases straight under <testsuites>.
    for (const node of children(root, 'testcase')) cases.push({ node, suites: [], file: attr(node, 'file') })
  }
  for (const suite of topSuites) {
    // The outermost suite's name is the runner's (pytest: "pytest") or the file's (Vitest), not a describe block;
    // node --test's top-level <testsuite> elements are describe blocks.
    collectCases(suite, [attr(suite, 'name') ?? ''], attr(suite, 'file'), cases)
  }
  const format = detectFormat(root, topSuites, cases)
  const tests = new Map<string, TestStatus>()
  for (const raw of cases) {
    const id = caseId(format, raw, options)
    if (id === '') continue
    const status = statusOf(raw.node)
    const previous = tests.get(id)
    tests.set(id, previous === undefined ? status : worseStatus(previous, status))
  }
  return { format, tests }
}
