import { describe, expect, test } from 'vitest'
import { bracketsBalanced, namesBoundBy, namesRead, writePythonTwin } from '../../../src/oracle/canaries/twins-python.ts'

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
      'from calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == mul(3, 2) == 6\n',
    ]
    for (const source of none) expect(writePythonTwin(source, 'test_twin'), source).toBeNull()
  })
})

describe('writePythonTwin: test methods of a class', () => {
  test("repeats a self-only method's line at the top level, one indent deep, paired with the method's id", () => {
    const spaces = twinOf('from calc import mul\n\n\nclass TestA:\n    def test_a(self):\n        assert mul(2, 3) == 6\n')
    expect(spaces.line).toMatch(/^ {4}assert mul\(2, 3\) == [0-57-9]$/)
    expect(spaces.pairedWith).toBe('TestA::test_a')
    const tabs = twinOf('from calc import mul\n\n\nclass TestA(object):\n\tdef test_a(self) -> None:\n\t\tassert mul(2, 3) == 6\n')
    expect(tabs.line).toMatch(/^\tassert mul\(2, 3\) == [0-57-9]$/)
    expect(tabs.pairedWith).toBe('TestA::test_a')
  })

  test('a method of a FAIL_TO_PASS test (named by its own name, as the ids end) is drawn first', () => {
    const source = 'from calc import mul\n\n\nclass TestA:\n    def test_a(self):\n        assert mul(2, 3) == 6\n\n    def test_b(self):\n        assert mul(1, 4) == 4\n'
    for (let i = 0; i < 40; i++) expect(writePythonTwin(source, 'test_twin', new Set(['test_b']))?.pairedWith).toBe('TestA::test_b')
  })

  // A fixture, a set-up hook or a tear-down may set up the state the call reads; a twin outside the test would not get it.
  test.each([
    ['a fixture the method asks for', 'class TestA:\n    def test_a(self, tmp_path):\n        assert mul(2, 3) == 6\n'],
    ['what the method reads from self', 'class TestA:\n    def test_a(self):\n        assert mul(self.n, 3) == 6\n'],
    ['a set-up method', 'class TestA:\n    def setup_method(self):\n        pass\n\n    def test_a(self):\n        assert mul(2, 3) == 6\n'],
    ["unittest's setUp", 'class TestA(TestCase):\n    def setUp(self):\n        pass\n\n    def test_a(self):\n        assert mul(2, 3) == 6\n'],
    ['a tear-down', 'class TestA:\n    def teardown_method(self):\n        pass\n\n    def test_a(self):\n        assert mul(2, 3) == 6\n'],
    ['a fixture of the class', 'class TestA:\n    @pytest.fixture(autouse=True)\n    def db(self):\n        yield\n\n    def test_a(self):\n        assert mul(2, 3) == 6\n'],
    ['a class that asks for fixtures', "@pytest.mark.usefixtures('db')\nclass TestA:\n    def test_a(self):\n        assert mul(2, 3) == 6\n"],
    ['a method that asks for fixtures', "class TestA:\n    @pytest.mark.usefixtures('db')\n    def test_a(self):\n        assert mul(2, 3) == 6\n"],
    ['a function that asks for fixtures', "@pytest.mark.usefixtures('db')\ndef test_a():\n    assert mul(2, 3) == 6\n"],
    ['a class pytest does not collect', 'class Checks:\n    def test_a(self):\n        assert mul(2, 3) == 6\n'],
    ['a nested class (its ids have another form)', 'class TestA:\n    class TestB:\n        def test_a(self):\n            assert mul(2, 3) == 6\n'],
    ['a static method', 'class TestA:\n    @staticmethod\n    def test_a():\n        assert mul(2, 3) == 6\n'],
    ['fixtures asked for above another decorator', "@pytest.mark.usefixtures('db')\n@pytest.mark.slow\ndef test_a():\n    assert mul(2, 3) == 6\n"],
  ])('none for %s', (_, body) => {
    expect(writePythonTwin(`import pytest\nfrom unittest import TestCase\nfrom calc import mul\n\n\n${body}`, 'test_twin')).toBeNull()
  })

  test('none for a test whose decorator on the first line asks for fixtures', () => {
    expect(writePythonTwin("@pytest.mark.usefixtures('db')\ndef test_a():\n    assert mul(2, 3) == 6\nimport pytest\nfrom calc import mul\n", 'test_twin')).toBeNull()
  })

  test('a test below one that asks for fixtures keeps its twin: only its own decorators count', () => {
    const source = "import pytest\nfrom calc import mul\n\n\n@pytest.mark.usefixtures('db')\ndef test_a():\n    assert mul(2, 3) == 6\ndef test_b():\n    assert mul(1, 4) == 4\n"
    for (let i = 0; i < 20; i++) expect(twinOf(source).pairedWith).toBe('test_b')
  })

  test('a class whose body starts with a blank line', () => {
    expect(twinOf('from calc import mul\n\n\nclass TestA:\n\n    def test_a(self):\n        assert mul(2, 3) == 6\n').pairedWith).toBe('TestA::test_a')
  })

  test('a decorator that gives no state (a mark) leaves the method its twin', () => {
    expect(twinOf('import pytest\nfrom calc import mul\n\n\nclass TestA:\n    @pytest.mark.slow\n    def test_a(self):\n        assert mul(2, 3) == 6\n').pairedWith).toBe(
      'TestA::test_a',
    )
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

describe('namesBoundBy: what a statement binds', () => {
  const cases: ReadonlyArray<readonly [string, readonly string[]]> = [
    ['import calc', ['calc']],
    ['import calc.sub', ['calc']],
    ['import calc.sub as  c', ['c']],
    ['import a, b as c', ['a', 'c']],
    ['import a,', ['a', '']],
    ['    import calc', ['calc']],
    ['from m import a, b as c', ['a', 'c']],
    ['from m import (a, b)', ['a', 'b']],
    ['from  m  import  a', ['a']],
    ['    from m import a', ['a']],
    ['from m import a  # b', ['a']],
    ['from m import *', ['*']],
    ['x = 1', ['x']],
    ["x = '#'", ['x']],
    ['x: int = 1', ['x']],
    ['a, b = 1, 2', ['a', 'b']],
    ['x += 1', ['x']],
    ['obj.attr = 1', ['obj']],
    ['def f(x):', ['f']],
    ['async  def g():', ['g']],
    ['class C(Base):', ['C']],
    ['for i, j in pairs:', ['i', 'j']],
    ['for  k  in x:', ['k']],
    ['with open(p) as f:', ['f']],
    ['global g', ['g']],
    ['if x == 1:', []],
    ['print(x)', []],
  ]
  for (const [statement, names] of cases) test(`${statement} → ${names.join(', ') || 'nothing'}`, () => expect(namesBoundBy(statement)).toEqual(names))
})

describe('namesRead: what an expression reads', () => {
  const cases: ReadonlyArray<readonly [string, readonly string[] | null]> = [
    ['mul(2, 3)', ['mul']],
    ['calc.mul(x)', ['calc', 'x']],
    ['f(key=1)', ['f']],
    ['f(key  = 1)', ['f']],
    ['f(a == 1)', ['f', 'a']],
    ['f(g(x))', ['f', 'g', 'x']],
    ["f('a b')", ['f']],
    ['f(b\'x\', r"y")', ['f']],
    ["f(f'{x}')", null],
    ["f(F'x')", null],
    ['f(lambda: 1)', null],
    ['f(await x)', null],
    ['f((y := 2))', null],
    ["f('a\\'b')", null],
    ["f('open)", null],
  ]
  for (const [code, names] of cases) test(`${code} → ${names === null ? 'cannot be moved' : names.join(', ')}`, () => expect(namesRead(code)).toEqual(names))
})

describe('bracketsBalanced', () => {
  test('every bracket closed by its own kind, in order, strings aside', () => {
    expect(bracketsBalanced("f(a[1], {2: (3)}, '(')")).toBe(true)
    for (const code of ['f(a]', 'f(a', 'f)(', 'f[a)', 'f{a]', 'f(a}']) expect(bracketsBalanced(code), code).toBe(false)
  })
})

describe('writePythonTwin: lines and layouts a reader by lines must get right', () => {
  test('pairs a comparison with the test it stands in, not a test before it', () => {
    const source = 'from calc import mul\n\n\ndef test_a():\n    pass\n\n\ndef test_b():\n    assert mul(2, 3) == 6\nx = 1\n'
    for (let i = 0; i < 20; i++) expect(writePythonTwin(source, 'test_twin')?.pairedWith).toBe('test_b')
  })

  test('a test body with blank lines in it, or first, or a space before a call', () => {
    expect(twinOf('from calc import mul\n\n\ndef test_a():\n\n    x = 1\n\n    assert mul(2, 3) == 6\n').line).toMatch(/^ {4}assert mul\(2, 3\) == \d$/)
    expect(twinOf('from calc import mul\n\n\ndef test_a():\n    assert mul (2, 3) == 6\n').line).toMatch(/^ {4}assert mul \(2, 3\) == \d$/)
    expect(twinOf('from calc import mul\n\n\ndef test_a():\n  \n    assert mul(2, 3) == 6\n').line).toMatch(/^ {4}assert mul\(2, 3\) == \d$/)
  })

  test('a parenthesised import over lines, with comments that hold parentheses', () => {
    expect(twinOf('from calc import (  # all (of them)\n    greet,\n    mul,  # (this one)\n)\n\n\ndef test_a():\n    assert mul(2, 3) == 6\n').pairedWith).toBe('test_a')
    expect(twinOf('from calc import (greet,\n    mul)\n\n\ndef test_a():\n    assert mul(2, 3) == 6\n').pairedWith).toBe('test_a')
  })

  test('a first test at the very start of the file, blank lines before it (spaces in them too)', () => {
    const first = writePythonTwin('def test_a():\n    assert mul(2, 3) == 6\nfrom calc import mul\n', 'test_twin')!.source
    expect(first).toMatch(/^def test_twin\(\):\n {4}assert mul\(2, 3\) == \d\ndef test_a\(\):/)
    const spaced = writePythonTwin('  \n\ndef test_a():\n    assert mul(2, 3) == 6\nfrom calc import mul\n', 'test_twin')!.source
    expect(spaced).toMatch(/^ {2}\n\ndef test_twin\(\):\n {4}assert mul\(2, 3\) == \d\n\n\ndef test_a\(\):/)
  })

  test('none for a name a helper binds inside itself, a star import beside the names, a literal it cannot reshape, a test with no body', () => {
    const none = [
      'from calc import mul\n\n\ndef helper():\n    n = 2\n\n\ndef test_a():\n    assert mul(n, 3) == 6\n',
      'from calc import *\nfrom calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == 6\n',
      "from calc import greet\n\n\ndef test_a():\n    assert greet('') == '--'\n",
      'from calc import mul\n\n\ndef test_empty():',
    ]
    for (const source of none) expect(writePythonTwin(source, 'test_twin'), source).toBeNull()
    // An import left open at the end of the file (a syntax error pytest reports) joins what follows and stops there.
    expect(writePythonTwin('def test_a():\n    assert mul(2, 3) == 6\nfrom calc import (mul,', 'test_twin')?.pairedWith).toBe('test_a')
  })
})
