import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { DataError } from '../../../src/errors.ts'
import { parseJUnit } from '../../../src/oracle/junit/parse.ts'

// The pytest, node --test and Vitest fixtures are these runners' real reports, captured from small
// projects in /tmp/junit-src/<runner> (the cwd passed below); the Jest one is a stand-in (see its comment).
const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', name), 'utf8')
const asObject = (tests: ReadonlyMap<string, string>) => Object.fromEntries(tests)

describe('parseJUnit', () => {
  it('reads node --test reports: nested describe blocks become "a > b > test", the file that failed to load becomes its relative path', () => {
    const results = parseJUnit(fixture('node-test.xml'), { cwd: '/tmp/junit-src/node' })
    expect(results.format).toBe('node')
    expect(asObject(results.tests)).toEqual({
      'area of a unit square': 'passed',
      'perimeter is wrong': 'failed',
      'circles > area > radius 1': 'passed',
      'circles > area > radius 2': 'passed',
      'circles > circumference fails': 'failed',
      'not yet': 'skipped',
      'test/broken.test.js': 'failed',
    })
  })

  it("reads node --test reports of Node 22 and Node 24 to the same ids (Node 24 adds each case's file and names a nested case's classname after its suite)", () => {
    // Real reports of one test file (test/a.test.mjs), written by Node 22.13.0 and Node 24.22.3 in /work/run.
    const node22 = parseJUnit(fixture('node-22.13.0.xml'), { cwd: '/work/run' })
    const node24 = parseJUnit(fixture('node-24.22.3.xml'), { cwd: '/work/run' })
    expect(node24.format).toBe('node')
    expect(asObject(node24.tests)).toEqual({
      adds: 'passed',
      multiplies: 'failed',
      'money > rounds "half" up': 'passed',
      'money > currency > keeps the code': 'passed',
    })
    expect(asObject(node22.tests)).toEqual(asObject(node24.tests))
  })

  it('names an unnamed node --test case "<anonymous>" as node does, and a forged case without a name never stands for its suite', () => {
    // Real report (Node 24.22.3) of test('') and describe('outer', () => { test(''); test('named') }) in test/anonymous.test.mjs.
    const real = parseJUnit(fixture('node-anonymous.xml'), { cwd: '/tmp/junit-src/node-anonymous' })
    expect(asObject(real.tests)).toEqual({ '<anonymous>': 'passed', 'outer > <anonymous>': 'passed', 'outer > named': 'passed' })
    // No runner writes a case without a name attribute; one written into the report by the code under test
    // gets an id ending in the separator, which no real (trimmed) name has, so it cannot pass as the listed "outer".
    const forged = '<testsuites><testsuite name="outer"><testcase classname="outer"/><testcase name="named" classname="outer"/></testsuite></testsuites>'
    const results = parseJUnit(forged, { cwd: '/copy' })
    expect(results.format).toBe('node')
    expect(asObject(results.tests)).toEqual({ 'outer > ': 'passed', 'outer > named': 'passed' })
  })

  it('reads Vitest reports: "file::describe > test", and a file that failed to load is the file alone', () => {
    const results = parseJUnit(fixture('vitest.xml'), { cwd: '/tmp/junit-src/vitest' })
    expect(results.format).toBe('vitest')
    expect(asObject(results.tests)).toEqual({
      'test/broken.test.js': 'failed',
      'test/shapes.test.js::area of a unit square': 'passed',
      'test/shapes.test.js::perimeter is wrong': 'failed',
      'test/shapes.test.js::circles > area > radius 1': 'passed',
      'test/shapes.test.js::circles > area > radius 2': 'passed',
      'test/shapes.test.js::circles > circumference fails': 'failed',
      'test/shapes.test.js::not yet': 'skipped',
      'test/shapes.test.js::square of 1 is 1': 'passed',
      'test/shapes.test.js::square of 2 is 4': 'passed',
    })
  })

  it('reads pytest reports as node ids when the test files are known, parametrised names and nested classes included', () => {
    const results = parseJUnit(fixture('pytest.xml'), {
      cwd: '/tmp/junit-src/pytest',
      testFiles: ['tests/test_geometry.py', 'tests/test_broken.py'],
    })
    expect(results.format).toBe('pytest')
    expect(asObject(results.tests)).toEqual({
      'tests/test_broken.py': 'failed',
      'tests/test_geometry.py::TestArea::test_area[1-1-1]': 'passed',
      'tests/test_geometry.py::TestArea::test_area[2-3-7]': 'failed',
      // The parameter "ab " ends in a space inside the brackets; only surrounding whitespace is trimmed.
      'tests/test_geometry.py::TestArea::test_area[ab -2-ab ab ]': 'passed',
      'tests/test_geometry.py::TestArea::TestNested::test_inner': 'passed',
      'tests/test_geometry.py::test_top_level': 'passed',
      'tests/test_geometry.py::test_skipped': 'skipped',
    })
  })

  it('falls back to "classname::name" for pytest cases whose file it was not told about', () => {
    const results = parseJUnit(fixture('pytest.xml'), { cwd: '/tmp/junit-src/pytest' })
    expect(results.tests.get('tests.test_geometry.TestArea::test_area[1-1-1]')).toBe('passed')
    expect(results.tests.get('tests.test_broken')).toBe('failed')
  })

  it('reads jest-junit reports, dropping the classname that repeats the title', () => {
    const results = parseJUnit(fixture('jest-junit.xml'))
    expect(results.format).toBe('jest')
    expect(asObject(results.tests)).toEqual({
      'area of a unit square': 'passed',
      'perimeter is wrong': 'failed',
      'circles area radius 1': 'passed',
      'circles area radius 2': 'passed',
      'circles circumference fails': 'failed',
      'not yet': 'skipped',
    })
  })

  it('gives the same ids for the same tests run in two different folders, whitespace and memory addresses aside', () => {
    const report = (dir: string, address: string, name: string) => `<?xml version="1.0"?>
<testsuites name="vitest tests"><testsuite name="t.test.js">
  <testcase classname="t.test.js" name="${name}"/>
  <testcase classname="t.test.js" name="renders &lt;Thing at ${address}&gt;"/>
  <testcase classname="t.test.js" name="loads ${dir}/data/x.json"/>
</testsuite></testsuites>`
    const first = parseJUnit(report('/tmp/run-a', '0x7f3a00c1d2e0', 'adds  two\n numbers  '), { cwd: '/tmp/run-a' })
    const second = parseJUnit(report('/tmp/run-b', '0x7f99112233aa', 'adds two numbers'), { cwd: '/tmp/run-b' })
    expect([...first.tests.keys()]).toEqual([...second.tests.keys()])
    expect([...first.tests.keys()]).toEqual(['t.test.js::adds two numbers', 't.test.js::renders <Thing at 0x?>', 't.test.js::loads data/x.json'])
  })

  it('never lets an ambiguous id pass on the strength of its twin: a duplicate id takes the worse status', () => {
    const xml = `<testsuites><testcase name="same" classname="test"/><testcase name="same" classname="test"><failure/></testcase>
      <testcase name="other" classname="test"/><testcase name="other" classname="test"><skipped/></testcase></testsuites>`
    expect(asObject(parseJUnit(xml).tests)).toEqual({ same: 'failed', other: 'skipped' })
  })

  it('counts <error> as a failure, like <failure>', () => {
    const xml = '<testsuite name="suite"><testcase classname="c" name="boom"><error message="x"/></testcase></testsuite>'
    expect(asObject(parseJUnit(xml).tests)).toEqual({ 'c::boom': 'failed' })
  })

  it('returns an empty map for a report without test cases, and throws a DataError for text that is not a report', () => {
    expect(parseJUnit('<testsuites name="vitest tests"></testsuites>').tests.size).toBe(0)
    expect(() => parseJUnit('<testsuites><testcase name="x"></testsuites>')).toThrow(DataError)
    expect(() => parseJUnit('<html><body>not junit</body></html>')).toThrow(/neither <testsuites> nor <testsuite>/)
  })
})

describe('parseJUnit on node --test names with quotes', () => {
  it('reads the name node 20 escapes twice the same as a singly escaped one', () => {
    const twice = '<testsuites><testcase name="under &amp;quot;uncategorised&amp;quot; &amp;amp; more" classname="test"/></testsuites>'
    const once = '<testsuites><testcase name="under &quot;uncategorised&quot; &amp; more" classname="test"/></testsuites>'
    expect([...parseJUnit(twice).tests.keys()]).toEqual(['under "uncategorised" & more'])
    expect([...parseJUnit(once).tests.keys()]).toEqual(['under "uncategorised" & more'])
  })
})
