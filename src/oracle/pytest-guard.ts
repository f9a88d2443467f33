import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * The oracle's pytest plugin, the counterpart of the Node preload: loaded
 * with `-p` (from a folder of the harness's own, first on PYTHONPATH, under a
 * name fresh for each run so no module of the agent's can shadow it) before
 * the tests import any of the agent's code. When pytest has configured, it
 * notes every function and class attribute of pytest, `_pytest.*`, pluggy,
 * unittest and builtins; when the session ends (after every fixture's
 * teardown, so a test's own `monkeypatch` is undone by then) it compares, and
 * any difference (assertion rewriting, the report classes, the JUnit writer,
 * the runner, `AssertionError` replaced) is written on a copy of the
 * process's stderr taken before pytest captures it. The oracle reads that
 * line as `oracle-disarmed`. The run also gets `-p no:cacheprovider`, so
 * nothing of a previous run's cache decides what runs.
 */

/** The line the plugin writes when pytest's internals changed during the session. */
export const PYTEST_GUARD_MARK = 'task-outcome oracle: pytest internals changed during the session:'

/** The plugin: a snapshot at configure, a comparison at session end. */
export const PYTEST_GUARD_SOURCE = `import os, sys, types
import pytest

_err = os.dup(2)
_write = os.write
_watched = ('builtins', 'pytest', '_pytest', 'pluggy', 'unittest')


def _modules():
    return {name: module for name, module in list(sys.modules.items())
            if isinstance(module, types.ModuleType) and (name in _watched or name.split('.')[0] in _watched)}


def _code(value):
    return callable(value) or isinstance(value, (property, classmethod, staticmethod))


def _snapshot():
    seen = {}
    for name, module in _modules().items():
        for key, value in list(vars(module).items()):
            if _code(value):
                seen[(name, key)] = value
            if isinstance(value, type) and getattr(value, '__module__', None) == name:
                for attribute, member in list(vars(value).items()):
                    if _code(member):
                        seen[(name, key + '.' + attribute)] = member
    return seen


_before = None
_missing = object()


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    global _before
    _before = (_snapshot(), dict(_modules()))


def pytest_sessionfinish(session):
    if _before is None:
        return
    values, modules = _before
    now = _modules()
    changed = sorted(name for name, module in modules.items() if now.get(name) is not module)
    after = _snapshot()
    for key, value in values.items():
        if key[0] in now and now[key[0]] is modules.get(key[0]) and after.get(key, _missing) is not value:
            changed.append(key[0] + ':' + key[1])
    for key in after:
        if key not in values and '.' in key[1] and key[0] in modules:
            changed.append(key[0] + ':' + key[1])
    if changed:
        _write(_err, ('\\n${PYTEST_GUARD_MARK} ' + ', '.join(changed[:8]) + '\\n').encode())
`

/** The command with the guard plugin loaded and pytest's cache provider off. */
export function withPytestGuard(command: string, moduleName: string): string {
  return command.replace(/(\bpytest)(?=\s|$)/, `$1 -p no:cacheprovider -p ${moduleName}`)
}

/** Writes the plugin under a fresh module name into `dir`; returns the folder (for PYTHONPATH) and the name (for `-p`). */
export async function writePytestGuard(dir: string): Promise<{ readonly dir: string; readonly moduleName: string }> {
  await mkdir(dir, { recursive: true })
  const moduleName = `task_outcome_guard_${randomBytes(6).toString('hex')}`
  await writeFile(path.join(dir, `${moduleName}.py`), PYTEST_GUARD_SOURCE, { mode: 0o444 })
  return { dir, moduleName }
}

/** The guard's line in the runner's stderr, as an oracle-disarmed problem (none when it did not write one). */
export function pytestGuardFindings(stderr: string): string[] {
  const line = stderr.split('\n').find((text) => text.startsWith(PYTEST_GUARD_MARK))
  return line === undefined ? [] : [`code in the test process changed pytest's internals (${line.slice(PYTEST_GUARD_MARK.length).trim()})`]
}
