import { describe, expect, it } from 'vitest'
import { normalizeIdPart, pytestNodeId } from '../../../src/oracle/junit/ids.ts'
import { parseJUnit } from '../../../src/oracle/junit/parse.ts'

// The JUnit parser on small hand-written reports, one shape at a time: which runner it takes a report for (that
// decides how ids are built), where a case's file comes from, what a case's status is, and what it leaves out.

const parsed = (xml: string) => {
  const { format, tests } = parseJUnit(xml)
  return { format, tests: Object.fromEntries(tests) }
}

describe('which runner wrote the report', () => {
  it('pytest by its root name or by a suite named "pytest" anywhere among the top suites', () => {
    expect(parsed('<testsuites name="pytest tests"><testsuite name="x"><testcase classname="c" name="n"/></testsuite></testsuites>').format).toBe('pytest')
    expect(parsed('<testsuites><testsuite name="other"/><testsuite name="pytest"><testcase classname="c" name="n"/></testsuite></testsuites>').format).toBe('pytest')
  })

  it('Vitest and jest by their root names', () => {
    expect(parsed('<testsuites name="vitest tests"><testsuite name="a.test.js"><testcase classname="a.test.js" name="n"/></testsuite></testsuites>').format).toBe('vitest')
    expect(parsed('<testsuites name="jest tests"><testsuite name="s"><testcase classname="c" name="n"/></testsuite></testsuites>').format).toBe('jest')
  })

  it('node --test by an unnamed root whose every case has the classname "test" or its suites joined by "."', () => {
    expect(parsed('<testsuites><testcase classname="test" name="top"/></testsuites>')).toEqual({ format: 'node', tests: { top: 'passed' } })
    expect(parsed('<testsuites><testsuite name="a"><testsuite name="b"><testcase classname="a.b" name="t"/></testsuite></testsuite></testsuites>')).toEqual({
      format: 'node',
      tests: { 'a > b > t': 'passed' },
    })
    // A suite without a name adds no level.
    expect(parsed('<testsuites><testsuite name="a"><testsuite><testcase classname="test" name="t"/></testsuite></testsuite></testsuites>').tests).toEqual({
      'a > t': 'passed',
    })
  })

  it('not node --test when the root has a name, when one case has another classname, or when a top-level case has an empty one', () => {
    expect(parsed('<testsuites name="mocha"><testcase classname="test" name="t"/></testsuites>').format).toBe('generic')
    expect(parsed('<testsuites><testcase classname="test" name="t"/><testcase classname="other" name="u"/></testsuites>').format).toBe('generic')
    expect(parsed('<testsuites><testcase classname="" name="t"/></testsuites>').format).toBe('generic')
  })

  it('jest-junit by every classname repeating its name; not when one does not; generic without cases', () => {
    expect(parsed('<testsuites name="x"><testsuite name="s"><testcase classname="a b" name="a b"/></testsuite></testsuites>')).toEqual({
      format: 'jest',
      tests: { 'a b': 'passed' },
    })
    expect(parsed('<testsuites name="x"><testsuite name="s"><testcase classname="a" name="a"/><testcase classname="c" name="d"/></testsuite></testsuites>').format).toBe('generic')
    expect(parsed('<testsuites><testsuite name="s"></testsuite></testsuites>')).toEqual({ format: 'generic', tests: {} })
  })

  it('a <testsuite> at the document root, or an empty <testsuites/>, is still a report', () => {
    expect(parsed('<testsuite name="s"><testcase classname="test" name="t"/></testsuite>')).toEqual({ format: 'node', tests: { 's > t': 'passed' } })
    expect(parsed('<testsuites/>')).toEqual({ format: 'generic', tests: {} })
  })
})

describe('ids and statuses of a generic report', () => {
  it("a case's file is its own, else its nearest suite's; without one the id is classname::name", () => {
    const xml =
      '<testsuites name="x"><testsuite name="s" file="outer.js">' +
      '<testcase classname="c" name="own" file="own.js"/><testcase classname="c" name="inherited"/>' +
      '<testsuite name="inner" file="inner.js"><testcase classname="c" name="nearest"/></testsuite>' +
      '</testsuite><testsuite name="t"><testcase classname="c" name="none"/></testsuite></testsuites>'
    expect(parsed(xml)).toEqual({
      format: 'generic',
      tests: { 'own.js::c::own': 'passed', 'outer.js::c::inherited': 'passed', 'inner.js::c::nearest': 'passed', 'c::none': 'passed' },
    })
  })

  it('a case straight under the root keeps its file; a case without a name is its classname; a jest case keeps a classname that differs from its name', () => {
    expect(parsed('<testsuites name="x"><testcase classname="c" name="n" file="f.js"/><testsuite name="s"><testcase classname="d"/></testsuite></testsuites>').tests).toEqual({
      'f.js::c::n': 'passed',
      d: 'passed',
    })
    expect(parsed('<testsuites name="jest tests"><testsuite name="s"><testcase classname="c" name="n"/></testsuite></testsuites>').tests).toEqual({ 'c::n': 'passed' })
    // node --test: an unnamed top suite adds no level either.
    expect(parsed('<testsuites><testsuite><testcase classname="test" name="t"/></testsuite></testsuites>').tests).toEqual({ t: 'passed' })
  })

  it('a failure attribute fails a case (node --test writes one); <skipped> skips it', () => {
    expect(
      parsed(
        '<testsuites name="x"><testsuite name="s"><testcase classname="c" name="f" failure="boom"/><testcase classname="c" name="s"><skipped/></testcase></testsuite></testsuites>',
      ).tests,
    ).toEqual({
      'c::f': 'failed',
      'c::s': 'skipped',
    })
  })

  it('a duplicate id takes the worse status whichever comes first, and a case without any id is left out', () => {
    expect(
      parsed('<testsuites name="x"><testsuite name="s"><testcase classname="c" name="d"><failure/></testcase><testcase classname="c" name="d"/></testsuite></testsuites>').tests,
    ).toEqual({
      'c::d': 'failed',
    })
    expect(parsed('<testsuites><testcase classname="test" name=""/></testsuites>').tests).toEqual({})
  })

  it('a report that is not XML names the line and column', () => {
    expect(() => parseJUnit('<testsuites>\n<testcase name="x">\n</testsuites>')).toThrow(/^the JUnit report is not well-formed XML \(line \d+, column \d+\): .+/)
  })
})

describe('the parts of an id', () => {
  it("strips the run's folder even when its name holds characters special to a regular expression, and nothing when there is none", () => {
    expect(normalizeIdPart('/tmp/run+1/test/a.js failed at /tmp/run+1:3', '/tmp/run+1')).toBe('test/a.js failed at :3')
    expect(normalizeIdPart('/tmp/runX1/test/a.js', '/tmp/run.1')).toBe('/tmp/runX1/test/a.js')
    expect(normalizeIdPart('/abs/x.js', '')).toBe('/abs/x.js')
    expect(normalizeIdPart(`${process.cwd()}/x.js`, '')).toBe(`${process.cwd()}/x.js`)
  })

  it("turns pytest's classname back into a node id by the longest matching test file, ignoring files that are not Python", () => {
    expect(pytestNodeId('tests.test_a.TestX', 'test_y', ['tests/test_a.pyc', 'tests.py', 'tests/test_a.py'])).toBe('tests/test_a.py::TestX::test_y')
    expect(pytestNodeId('tests.test_a.TestX', 'test_y', ['tests/test_a.py', 'tests.py'])).toBe('tests/test_a.py::TestX::test_y')
    expect(pytestNodeId('tests.test_a', 'test_y', ['tests/test_a.txt'])).toBe('tests.test_a::test_y')
    expect(pytestNodeId('tests.test_a', 'test_y', ['tests/test_a.js'])).toBe('tests.test_a::test_y')
    expect(pytestNodeId('tests.test_ab', 'test_y', ['tests/test_a.py'])).toBe('tests.test_ab::test_y')
  })
})
