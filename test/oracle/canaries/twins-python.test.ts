import { describe, expect, test } from 'vitest'
import { writePythonTwin } from '../../../src/oracle/canaries/twins-python.ts'

// A pytest file's twin: one of its own `assert <call> == <literal>` lines as a test function of its own, the literal
// reshaped, among the file's top-level tests. It runs the code under test, so it must fail where the real line passes.

/** The twin written for `source` (named test_twin), asserting that there is one. */
function twinOf(source: string): { source: string; line: string; pairedWith: string } {
  const twin = writePythonTwin(source, 'test_twin')
  expect(twin).not.toBeNull()
  const lines = twin!.source.split('\n')
  const at = lines.indexOf('def test_twin():')
  expect(at).toBeGreaterThanOrEqual(0)
  expect(twin!.method).toBe('==')
  return { source: twin!.source, line: lines[at + 1]!, pairedWith: twin!.pairedWith }
}

describe('writePythonTwin: which comparison a twin repeats', () => {
  test("repeats the file's own line with the literal reshaped, and pairs it with the test the line is in", () => {
    const source = `from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n`
    for (let i = 0; i < 50; i++) {
      const twin = twinOf(source)
      expect(twin.line).toMatch(/^ {4}assert mul\(2, 3\) == [0-57-9]$/)
      expect(twin.pairedWith).toBe('test_mul')
    }
  })

  test('keeps a negative sign and a string’s quotes, and keeps the test’s indent (tabs too)', () => {
    expect(twinOf('from calc import mul\n\ndef test_neg():\n\tassert mul(-2, 3) == -6\n').line).toMatch(/^\tassert mul\(-2, 3\) == -[0-57-9]$/)
    const greeting = twinOf(`from calc import greet\n\ndef test_greet():\n    assert greet('bob') == 'Hello, bob'  # the name last\n`).line
    expect(greeting).toMatch(/^ {4}assert greet\('bob'\) == '[A-Z][a-z]{4}, [a-z]{3}'$/)
    expect(greeting).not.toBe("    assert greet('bob') == 'Hello, bob'")
  })

  test('reads names the file binds at its top level in every form, and the builtins', () => {
    const forms = [
      'import calc\n\n\ndef test_a():\n    assert calc.mul(2, 3) == 6\n',
      'import calc as c\n\n\ndef test_a():\n    assert c.mul(2, 3) == 6\n',
      'from calc import (\n    greet,\n    mul as times,\n)\n\n\ndef test_a():\n    assert times(2, 3) == 6\n',
      'from calc import mul\nN = 3\n\n\ndef test_a():\n    assert mul(2, N) == 6\n',
      'from calc import mul\n\n\ndef two():\n    return 2\n\n\ndef test_a():\n    assert len(str(mul(two(), 5))) == 2\n',
      'from calc import mul\n\n\nclass Box:\n    size = 3\n\n\ndef test_a():\n    assert mul(Box.size, 2) == 6\n',
    ]
    for (const source of forms) expect(twinOf(source).pairedWith, source).toBe('test_a')
  })

  test('leaves out a comparison that reads what the test binds, a fixture, or a name the file never binds', () => {
    const none = [
      'from calc import mul\n\n\ndef test_a():\n    x = 2\n    assert mul(x, 3) == 6\n',
      'from calc import mul\n\n\ndef test_a():\n    for x in range(1):\n        assert mul(2, 3) == 6\n',
      'from calc import mul\n\n\ndef test_a(tmp_path):\n    assert mul(2, 3) == 6\n',
      'from calc import *\n\n\ndef test_a():\n    assert mul(2, 3) == 6\n',
      'def test_a():\n    assert mul(2, 3) == 6\n',
      'from calc import mul\n\n\ndef test_a():\n    with open("f") as mul:\n        pass\n    assert mul(2, 3) == 6\n',
      'import calc\nmul = calc\n\n\ndef test_a():\n    import calc as mul\n    assert mul.mul(2, 3) == 6\n',
    ]
    for (const source of none) expect(writePythonTwin(source, 'test_twin'), source).toBeNull()
  })

  test('leaves out what does not call, what is not one whole line, and literals it cannot reshape', () => {
    const none = [
      'from calc import LIMIT\n\n\ndef test_a():\n    assert LIMIT == 3\n',
      'from calc import mul\n\n\ndef test_a():\n    assert (mul(2, 3)) == (6)\n',
      'from calc import mul\n\n\ndef test_a():\n    assert mul(2,\n        3) == 6\n',
      'from calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == 6, "six"\n',
      'from calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == 6e0\n',
      'from calc import greet\n\n\ndef test_a():\n    assert greet("") == "Hello, \\n"\n',
      'from calc import greet\n\n\ndef test_a():\n    assert greet(f"{1}") == "Hello, 1"\n',
      'from calc import mul\n\n\ndef test_a():\n    assert (lambda: mul(2, 3))() == 6\n',
      'from calc import mul\n\n\ndef test_a():\n    if True:\n        assert mul(2, 3) == 6\n',
      'from calc import mul\n\n\nclass TestA:\n    def test_a(self):\n        assert mul(2, 3) == 6\n',
      'from calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == mul(3, 2) == 6\n',
    ]
    for (const source of none) expect(writePythonTwin(source, 'test_twin'), source).toBeNull()
  })
})

describe('writePythonTwin: which test it pairs with', () => {
  const source = 'from calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == 6\n\n\ndef test_b():\n    assert mul(1, 4) == 4\n'

  test('a comparison of a preferred test (FAIL_TO_PASS) whenever there is one', () => {
    for (let i = 0; i < 40; i++) expect(writePythonTwin(source, 'test_twin', new Set(['test_b']))?.pairedWith).toBe('test_b')
  })

  test('any of the file’s comparisons when no preferred test has one', () => {
    const seen = new Set(Array.from({ length: 60 }, () => writePythonTwin(source, 'test_twin', new Set(['test_c']))?.pairedWith))
    expect([...seen].sort()).toEqual(['test_a', 'test_b'])
  })
})

describe('writePythonTwin: where the twin stands', () => {
  test('before a top-level test, above its decorators, with the blank lines that stood before it', () => {
    const source =
      'import pytest\nfrom calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == 6\n\n\n@pytest.mark.slow\n@pytest.mark.tagged\ndef test_b():\n    assert mul(1, 1) == 1\n'
    const seen = new Set<string>()
    for (let i = 0; i < 60; i++) {
      const written = twinOf(source).source
      const lines = written.split('\n')
      const at = lines.indexOf('def test_twin():')
      // Followed, after two blank lines, by a test or the first of its decorators.
      expect(lines.slice(at + 2, at + 4)).toEqual(['', ''])
      expect(lines[at + 4]).toMatch(/^def test_a\(|^@pytest\.mark\.slow$/)
      expect(lines[at - 1]).toBe('')
      seen.add(lines[at + 4]!)
      // Nothing of the file lost or changed: the twin's lines out, the file is as it was.
      expect([...lines.slice(0, at), ...lines.slice(at + 4)].join('\n')).toBe(source)
    }
    expect(seen.size).toBe(2)
  })

  test('before a test class as well, and never inside a function', () => {
    const source = 'from calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == 6\n\n\nclass TestMore:\n    def test_b(self):\n        assert mul(1, 1) == 1\n'
    for (let i = 0; i < 30; i++) {
      const lines = twinOf(source).source.split('\n')
      expect(lines[lines.indexOf('def test_twin():') + 4]).toMatch(/^def test_a\(|^class TestMore:$/)
    }
  })

  test('none without a top-level test to stand before', () => {
    expect(writePythonTwin('from calc import mul\n\n\ndef check():\n    assert mul(2, 3) == 6\n', 'test_twin')).toBeNull()
  })
})
