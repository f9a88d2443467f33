import { describe, expect, test } from 'vitest'
import { minimalReplacement, wrongReplacement } from '../../src/scripted-model/edit.ts'

const apply = (text: string, r: { oldString: string; newString: string }) => {
  expect(text.indexOf(r.oldString)).toBe(text.lastIndexOf(r.oldString)) // unique, as Edit tools demand
  return text.replace(r.oldString, () => r.newString)
}

describe('minimalReplacement', () => {
  test('replaces only the changed lines', () => {
    const before = 'a\nb\nc\nd\n'
    const after = 'a\nB\nc\nd\n'
    expect(minimalReplacement(before, after)).toEqual({ oldString: 'b', newString: 'B' })
  })

  test('adds context until the old text is unique', () => {
    const before = 'x = 1\nreturn x\ny = 2\nreturn x\n'
    const after = 'x = 1\nreturn x\ny = 2\nreturn y\n'
    const replacement = minimalReplacement(before, after)!
    expect(replacement.oldString).toContain('y = 2\nreturn x')
    expect(apply(before, replacement)).toBe(after)
  })

  test('a pure insertion gets a non-empty anchor', () => {
    const before = 'one\ntwo\n'
    const after = 'one\ninserted\ntwo\n'
    const replacement = minimalReplacement(before, after)!
    expect(replacement.oldString.trim()).not.toBe('')
    expect(apply(before, replacement)).toBe(after)
  })

  test('changes far apart become one span; equal contents need nothing', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n')
    const after = before.replace('line 2', 'LINE 2').replace('line 17', 'LINE 17')
    expect(apply(before, minimalReplacement(before, after)!)).toBe(after)
    expect(minimalReplacement(before, before)).toBeNull()
  })
})

describe('wrongReplacement', () => {
  test("marks the spot with a comment in the file's language and leaves the bug", () => {
    const before = 'function f() {\n  return 1\n}\n'
    const after = 'function f() {\n  return 2\n}\n'
    const wrong = wrongReplacement('src/f.js', before, after)!
    const result = apply(before, wrong)
    expect(result).toContain('  // ')
    expect(result).toContain('return 1')
    expect(result).not.toContain('return 2')
    expect(apply('x = 1\n', wrongReplacement('f.py', 'x = 1\n', 'x = 2\n')!)).toContain('# ')
  })

  test('no line comment known for the language: none', () => {
    expect(wrongReplacement('data.json', '{"a":1}\n', '{"a":2}\n')).toBeNull()
  })
})
