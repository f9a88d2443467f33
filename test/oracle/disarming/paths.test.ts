import { describe, expect, test } from 'vitest'
import { isProcPath, isTestPath, isTestPattern } from '../../../src/oracle/disarming/paths.ts'

describe('isProcPath: a /proc path, with \\0 for the parts the analysis cannot read', () => {
  test.each(['/proc', '/proc/self/cmdline', '/proc/\0/cmdline', '/proc\0', 'file:///proc/1/environ'])('%j is one', (value) => {
    expect(isProcPath(value)).toBe(true)
  })
  test.each(['/processes', 'proc/self', '/tmp/proc/x', 'file://x/proc', ''])('%j is not', (value) => {
    expect(isProcPath(value)).toBe(false)
  })
})

describe('isTestPath: a test file or folder, never a bare word', () => {
  test.each([
    'add.test.mjs',
    'x.spec.ts',
    '.test.',
    'a.tests.js',
    'test/add.js',
    '../tests/x',
    './spec',
    'src/__tests__/a.js',
    'test_add.py',
    'pkg/test_add.py',
    'add_test.py',
    '\0.test.\0',
  ])('%j is one', (value) => {
    expect(isTestPath(value)).toBe(true)
  })
  test.each(['test', 'spec.ts', 'src/add.js', 'testing/x', 'latest.js', 'contest_x.py'])('%j is not', (value) => {
    expect(isTestPath(value)).toBe(false)
  })
})

describe("isTestPattern: a regular expression's source that matches test files", () => {
  test.each([String.raw`\.test\.`, String.raw`(test|spec)\.[jt]s$`, '^test_', String.raw`tests?\/`, String.raw`_test\.py$`])('%j is one', (source) => {
    expect(isTestPattern(source)).toBe(true)
  })
  test.each(['test', String.raw`\.js$`, 'latest', '^src/'])('%j is not', (source) => {
    expect(isTestPattern(source)).toBe(false)
  })
})
