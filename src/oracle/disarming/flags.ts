/**
 * The integrity flags' names, as records carry them (`<name>: <file>:<line>`).
 * The names of the regex scanner they replace are kept, so records written
 * before and after stay comparable; the parser's new findings have names of
 * their own (docs/integrity.md lists both).
 */
export const FLAG = {
  /** A write to `node:assert` (or `node:assert/strict`) or anything read from it, or a mock of it. */
  replacesAssert: 'replaces node:assert',
  /** A write to Vitest's or Jest's `expect`, chai, or their globals, or a mock of them. */
  replacesExpect: 'replaces expect',
  /** `expect.extend`, `expect.addEqualityTesters`, `chai.use`, chai's `addMethod`/`overwriteMethod` family. */
  extendsExpect: 'extends expect',
  /**
   * A write to `node:test`, the test runner's globals, the module loader, `process`'s exit and output, loader
   * hooks registered; exit handlers. In Python: `pytest`, `_pytest`, `pluggy`, `unittest`, `builtins`, `sys`'s
   * hooks written, import hooks added, `atexit` handlers.
   */
  monkeypatchesRunner: 'monkeypatches the test runner',
  /** `process.exit`, `reallyExit`, `abort` or `kill` called while the module loads. */
  processExit: 'process.exit at module scope',
  /** `os._exit`, `sys.exit`, `os.abort` or `os.kill` called while the module loads. */
  osExit: 'os._exit at module scope',
  /** A `pytest_*` hook, `pytest_plugins` or `@pytest.hookimpl` outside the tests, or a `conftest.py`. */
  pytestHook: 'pytest hook outside the tests',
  pytestConfiguration: 'pytest configuration',
  sitecustomize: 'sitecustomize',
  changesRunner: 'changes the test runner',
  /** `eval`, `Function`, `vm`, a string timer, `exec`/`eval`/`compile` on code the analysis cannot read (code it can read is analysed). */
  evaluatesString: 'evaluates a string',
  /** A module loaded by a name the analysis cannot read (`require(x)`, `import(x)`, `__import__(x)`). */
  computedModule: 'loads a module by a computed name',
  /** A test path named in a module that reads files or loads it. */
  readsTestFiles: 'reads test files',
  /** A `/proc` path, or the parent's pid (`process.ppid`, `os.getppid()`). */
  readsProc: 'reads /proc',
  /** The parser rejects the file (the flag's line is the first error's). */
  doesNotParse: 'does not parse',
  /** The file was not analysed: over the size limit, no interpreter for it, or its analysis died. */
  notAnalysed: 'not analysed',
} as const

/** One finding of an analysis: the flag's name and the 1-based line it is at (null: the whole file). */
export interface Finding {
  readonly name: string
  readonly line: number | null
}
