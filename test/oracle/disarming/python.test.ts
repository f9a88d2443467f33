import { chmod, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { FLAG } from '../../../src/oracle/disarming/flags.ts'
import { analysePython, type PythonAnalysisOptions } from '../../../src/oracle/disarming/python.ts'
import { type OracleToolchain, resolveOracleToolchain } from '../../../src/oracle/toolchain.ts'

// The Python analysis as the scanner runs it: the oracle's own python3, in a sandbox that sees none of the workspace.
let toolchain: OracleToolchain
let options: PythonAnalysisOptions

beforeAll(async () => {
  toolchain = await resolveOracleToolchain(process.env.PATH, [])
  options = { python: toolchain.binaries.python3!, mounts: toolchain.mounts, path: toolchain.path, sandboxed: true, timeoutMs: 60_000 }
})

/** Each file's flags, each once, as `<flag>:<line>`. */
async function analyse(files: Record<string, string>, using = options): Promise<Record<string, string[]>> {
  const found = await analysePython(
    Object.entries(files).map(([file, source]) => ({ path: file, bytes: Buffer.from(source) })),
    using,
  )
  return Object.fromEntries(
    [...found].map(([file, findings]) => {
      const seen = new Map<string, number | null>()
      for (const { name, line } of findings) if (!seen.has(name)) seen.set(name, line)
      return [file, [...seen].map(([name, line]) => `${name}:${line}`).sort()]
    }),
  )
}

const RUNNER = (line: number) => `${FLAG.monkeypatchesRunner}:${line}`

describe('the Python analysis', () => {
  test('flags writes to pytest, _pytest, unittest and builtins in any syntax, with aliases and computed keys', async () => {
    const found = await analyse({
      'attribute.py': 'import pytest\npytest.approx = lambda *a, **k: True\n',
      'alias.py': 'import _pytest.runner as r\nsetattr(r, "call_" + "and_report", None)\n',
      'from.py': 'from unittest import TestCase\nTestCase.assertEqual = lambda *a: None\n',
      'dict.py': "import builtins\nbuiltins.__dict__['AssertionError'] = Exception\n",
      'vars.py': 'import _pytest.assertion.rewrite as rw\nvars(rw).update(x=1)\n',
      'getattr.py': "import pytest\ngetattr(pytest, 'raises').__code__ = None\n",
      'dunder-import.py': "m = __import__('py' + 'test')\nm.main = None\n",
      'importlib.py': "import importlib\nm = importlib.import_module('tsetyp_'[::-1])\nm.runner.x = 1\n",
      'loop.py': "for mod in [__import__('unittest')]:\n    mod.main = None\n",
      'parameter.py': 'import pluggy\n\ndef patch(m):\n    m.HookCaller = object\n\npatch(pluggy)\n',
      'sys.py': "import sys\nsys.modules['pytest'] = None\n",
      'meta-path.py': 'import sys\n\nsys.meta_path.insert(0, Finder())\n',
      'exec.py': "exec('import pytest; pytest.fail = print')\n",
    })
    expect(found).toEqual({
      'attribute.py': [RUNNER(2)],
      'alias.py': [RUNNER(2)],
      'from.py': [RUNNER(2)],
      'dict.py': [RUNNER(2)],
      'vars.py': [RUNNER(2)],
      'getattr.py': [RUNNER(2)],
      'dunder-import.py': [RUNNER(2)],
      'importlib.py': [RUNNER(3)],
      'loop.py': [RUNNER(2)],
      'parameter.py': [RUNNER(4)],
      'sys.py': [RUNNER(2)],
      'meta-path.py': [RUNNER(3)],
      'exec.py': [RUNNER(1)],
    })
  })

  test('flags exit handlers, exits while the module loads, hooks, code from strings, computed imports and reads', async () => {
    const found = await analyse({
      'atexit.py': 'import atexit\n\n@atexit.register\ndef bye():\n    pass\n',
      'exit.py': 'import os\nos._exit(0)\n',
      'sys-exit.py': 'import sys as s\nx = 1\ns.exit(0)\n',
      'raise.py': 'raise SystemExit(0)\n',
      'hook.py': 'def pytest_collection_modifyitems(items):\n    items.clear()\n',
      'plugins.py': "pytest_plugins = ['evil']\n",
      'hookimpl.py': 'import pytest\n\n\n@pytest.hookimpl(tryfirst=True)\ndef anything(item):\n    pass\n',
      'eval.py': 'eval(code)\n',
      'computed.py': 'import importlib\nimportlib.import_module(name)\n',
      'test-file.py': "t = open('tests/test_core.py').read()\n",
      'test-glob.py': "import glob\nfiles = glob.glob('**/test_*.py', recursive=True)\n",
      'proc.py': "import os\ncmd = open(f'/proc/{os.getppid()}/cmdline').read()\n",
    })
    expect(found).toEqual({
      'atexit.py': [RUNNER(3)],
      'exit.py': [`${FLAG.osExit}:2`],
      'sys-exit.py': [`${FLAG.osExit}:3`],
      'raise.py': [`${FLAG.osExit}:1`],
      'hook.py': [`${FLAG.pytestHook}:1`],
      'plugins.py': [`${FLAG.pytestHook}:1`],
      'hookimpl.py': [`${FLAG.pytestHook}:4`],
      'eval.py': [`${FLAG.evaluatesString}:1`],
      'computed.py': [`${FLAG.computedModule}:2`],
      'test-file.py': [`${FLAG.readsTestFiles}:1`],
      'test-glob.py': [`${FLAG.readsTestFiles}:2`],
      'proc.py': [`${FLAG.readsProc}:2`],
    })
  })

  test('leaves benign look-alikes alone, and flags a file that does not parse at its line', async () => {
    const found = await analyse({
      'benign.py':
        "import json, os, sys\nMODE = 'test'\n\n\nclass Assert:\n    pass\n\n\nAssert.ok = 1\npytest = object()\n" +
        "def load(p):\n    return json.load(open(p))\n\n\ndef main():\n    sys.exit(1)\n\n\nos.environ['X'] = '1'\nsys.path.insert(0, 'lib')\n",
      'local-setattr.py': 'class Config:\n    pass\n\n\nsetattr(Config, "debug", True)\nexec("x = 1")\n',
      'broken.py': 'x = 1\ndef f(:\n',
      'null-byte.py': 'x = 1\u0000\n',
      'deep.py': `x = ${'('.repeat(1000)}1${')'.repeat(1000)}\n`,
    })
    expect(found).toEqual({
      'benign.py': [],
      'local-setattr.py': [],
      'broken.py': [`${FLAG.doesNotParse}:2`],
      'null-byte.py': [`${FLAG.doesNotParse}:1`],
      'deep.py': [expect.stringMatching(new RegExp(`^(?:${FLAG.doesNotParse}|${FLAG.notAnalysed}):`))],
    })
  })

  test("runs as the sandbox's unprivileged user, seeing none of the workspace: a stand-in interpreter that checks says so", async () => {
    // The stand-in answers `not analysed` at line 99 when it runs as the host's root (its uid maps to host uid 0) or
    // can see the workspace; else it is python3.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'python-probe-'))
    const workspace = await mkdtemp(path.join(os.tmpdir(), 'python-probe-workspace-'))
    const probe = path.join(dir, 'python3')
    await writeFile(
      probe,
      `#!/bin/sh\nif [ "$(awk '$1 == '"$(id -u)"' { print $2 }' /proc/self/uid_map)" = 0 ] || [ -e '${workspace}' ]; then echo '{"path": "a.py", "findings": [["${FLAG.notAnalysed}", 99]]}'; exit 0; fi\nexec '${options.python}' "$@"\n`,
    )
    await chmod(dir, 0o755)
    await chmod(probe, 0o755)
    const using = { ...options, python: probe, mounts: [...options.mounts, dir] }
    expect(await analyse({ 'a.py': 'import pytest\npytest.x = 1\n' }, using)).toEqual({ 'a.py': [RUNNER(2)] })
    // Unsandboxed (an UNSANDBOXED experiment's oracle runs on the host, and so does its analysis) the probe sees it.
    expect(await analyse({ 'a.py': 'import pytest\npytest.x = 1\n' }, { ...using, sandboxed: false })).toEqual({ 'a.py': [`${FLAG.notAnalysed}:99`] })
  })

  test('a file the interpreter dies on is not analysed, and the files after it are, by a fresh process', async () => {
    // A stand-in interpreter that runs the real analysis but kills itself (SIGSEGV) at a file that says `# die here`.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'python-dies-'))
    const dying = path.join(dir, 'python3')
    await writeFile(
      dying,
      `#!${options.python}\nimport base64, io, json, os, signal, sys\nitems = json.load(sys.stdin)\nscript = sys.argv[sys.argv.index('-c') + 1]\n` +
        "cut = next((i for i, item in enumerate(items) if b'# die here' in base64.b64decode(item['source'])), None)\n" +
        "sys.stdin = io.StringIO(json.dumps(items if cut is None else items[:cut]))\nexec(compile(script, 'analysis', 'exec'), {'__name__': '__main__'})\n" +
        'sys.stdout.flush()\nif cut is not None:\n    os.kill(os.getpid(), signal.SIGSEGV)\n',
    )
    await chmod(dir, 0o755)
    await chmod(dying, 0o755)
    const found = await analyse(
      { 'first.py': 'import pytest\npytest.x = 1\n', 'dies.py': '# die here\n', 'after.py': 'import os\nos._exit(0)\n' },
      { ...options, python: dying, mounts: [...options.mounts, dir] },
    )
    expect(found).toEqual({ 'first.py': [RUNNER(2)], 'dies.py': [`${FLAG.notAnalysed}:null`], 'after.py': [`${FLAG.osExit}:2`] })
  })

  test('stops when the oracle is aborted: the file it was on is not analysed, the ones after it are left out', async () => {
    const found = await analyse({ 'first.py': 'import os\nos._exit(0)\n', 'after.py': 'import os\nos._exit(0)\n' }, { ...options, signal: AbortSignal.abort() })
    expect(found).toEqual({ 'first.py': [`${FLAG.notAnalysed}:null`] })
  })
})
