import { describe, expect, test } from 'vitest'
import { FLAG } from '../../../src/oracle/disarming/flags.ts'
import { parseAnswer } from '../../../src/oracle/disarming/python.ts'

// The Python analysis's answer lines, read without starting python3 (the analysis itself is in python.test.ts).

describe("a line of the Python analysis's answers (parseAnswer)", () => {
  test("reads a file's path and its known flags, each with its line", () => {
    const line = JSON.stringify({
      path: 'tests/conftest.py',
      findings: [
        [FLAG.processExit, 3],
        [FLAG.replacesAssert, 12],
      ],
    })
    expect(parseAnswer(line)).toEqual({
      path: 'tests/conftest.py',
      findings: [
        { name: FLAG.processExit, line: 3 },
        { name: FLAG.replacesAssert, line: 12 },
      ],
    })
  })

  test('keeps a flag whose line is missing, fractional or not a number, with no line', () => {
    const line = JSON.stringify({ path: 'a.py', findings: [[FLAG.processExit], [FLAG.processExit, 2.5], [FLAG.processExit, '4']] })
    expect(parseAnswer(line)?.findings).toEqual([
      { name: FLAG.processExit, line: null },
      { name: FLAG.processExit, line: null },
      { name: FLAG.processExit, line: null },
    ])
  })

  test('drops a finding that is not a list of a known flag: an unknown name, a number, an object', () => {
    const line = JSON.stringify({ path: 'a.py', findings: [['looks fine', 1], [7, 1], { 0: FLAG.processExit, 1: 1 }, FLAG.processExit, [FLAG.processExit, 9]] })
    expect(parseAnswer(line)).toEqual({ path: 'a.py', findings: [{ name: FLAG.processExit, line: 9 }] })
  })

  test('is null for a line that is no answer: not JSON, null, no path, a path that is no string, findings that are no list', () => {
    for (const line of [
      '',
      'Traceback (most recent call last):',
      'null',
      '{"findings": []}',
      '{"path": 3, "findings": []}',
      '{"path": "a.py", "findings": {}}',
      '{"path": "a.py"}',
    ]) {
      expect(parseAnswer(line), line).toBeNull()
    }
  })
})
