import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createExperimentFixture, type ExperimentFixture } from '../helpers/experiment-fixture.ts'
import { cli } from '../helpers/kebab-repository.ts'
import { buildRepo, findPytestPython } from '../helpers/throwaway.ts'

// A pytest repository harvested, selected and validated in a Python environment as people have one, then run (gold
// and noop) in the sandbox: the oracle must judge with the same interpreter as validate did and record it in
// versions.toolchain. Two environments: an active virtualenv whose tests need a package beyond pytest (a one-file
// module written into its site-packages: no network; pytest from the base, --system-site-packages), and `python3` a
// link into another installation (no shims: only the link on PATH, before Debian's /usr/bin/python3) whose fix
// imports a package of that installation that /usr/bin/python3 lacks: an interpreter run without its own prefix
// mounted quietly takes Debian's standard library and dist-packages (pytest included), so only that package tells
// the installation's own judging from the system's.
const python = findPytestPython()
const installed = python === null ? null : realpathSync(execFileSync(python, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim())
const onlyInstalled = installed === null || installed.startsWith('/usr/') ? null : moduleOnlyIn(installed)

const code = (imports: string, body: string) => `${imports}\n\ndef lap(start, end):\n    return ${body}\n`
const TESTS = (cases: string) => `from pkg.laps import lap\n\n\n${cases}`
const SECOND = 'def test_forward():\n    assert lap(1, 4) == 3\n\n\ndef test_backward():\n    assert lap(4, 1) == 3\n'

interface Environment {
  readonly name: string
  /**
   * Makes the environment in `scratch`: the variables its activation sets, what versions.toolchain must say, and
   * the fix (what `pkg/laps.py` imports and returns).
   */
  readonly make: (scratch: string) => Promise<{ env: Record<string, string>; toolchain: string; fix: readonly [string, string] }>
}

/**
 * A top-level module of `python`'s own site-packages that imports there and that /usr/bin/python3 cannot find
 * (any importable one when the machine has no /usr/bin/python3), or null.
 */
function moduleOnlyIn(python: string): string | null {
  const listed = execFileSync(
    python,
    [
      '-c',
      'import pkgutil, sysconfig; print("\\n".join(sorted((m.name for m in pkgutil.iter_modules([sysconfig.get_paths()["purelib"]]) if m.name.isidentifier() and not m.name.startswith("_")), key=str.lower)))',
    ],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter((name) => name !== '')
  const lacking = existsSync('/usr/bin/python3')
    ? execFileSync('/usr/bin/python3', ['-c', 'import importlib.util, sys; print("\\n".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))', ...listed], {
        encoding: 'utf8',
      }).split('\n')
    : listed
  return lacking.find((name) => name !== '' && spawnSync(python, ['-c', `import ${name}`], { stdio: 'ignore', timeout: 30_000 }).status === 0) ?? null
}

const ENVIRONMENTS: Environment[] = [
  {
    name: 'an active virtualenv whose tests need a package beyond pytest',
    async make(scratch) {
      const venv = path.join(scratch, 'venv')
      execFileSync(python!, ['-m', 'venv', '--system-site-packages', '--without-pip', venv])
      const site = execFileSync(path.join(venv, 'bin', 'python3'), ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).trim()
      await writeFile(path.join(site, 'stopwatch.py'), 'def elapsed(start, end):\n    return end - start\n')
      // What `source venv/bin/activate` does.
      return {
        env: { PATH: `${path.join(venv, 'bin')}:${process.env.PATH}`, VIRTUAL_ENV: venv },
        toolchain: `${venv}/bin/python3 (virtualenv of `,
        fix: ['from stopwatch import elapsed', 'abs(elapsed(start, end))'],
      }
    },
  },
  {
    name: '`python3` a link into another installation',
    async make(scratch) {
      const bin = path.join(scratch, 'bin')
      await mkdir(bin)
      for (const name of ['python3', 'python']) await symlink(installed!, path.join(bin, name))
      return { env: { PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin` }, toolchain: ` ${installed}; `, fix: [`import ${onlyInstalled}`, 'abs(end - start)'] }
    },
  },
]

for (const environment of ENVIRONMENTS) {
  // The link case needs an installation that is not the system's own (pyenv here), with a package the system's lacks;
  // without one it has nothing to link into.
  const skip = python === null || (environment.name.includes('link') && onlyInstalled === null)
  describe.skipIf(skip)(`a pytest repository in ${environment.name}`, () => {
    let scratch: string
    let fixture: ExperimentFixture
    let repo: { dir: string; commits: string[] }
    let env: Record<string, string>
    let toolchain: string
    let fix: readonly [string, string]
    let validateOutput: string

    beforeAll(async () => {
      scratch = await mkdtemp(path.join(os.tmpdir(), 'python-envs-'))
      ;({ env, toolchain, fix } = await environment.make(scratch))
      repo = await buildRepo(
        [
          { subject: 'Initial laps', files: { 'pytest.ini': '[pytest]\n', 'pkg/__init__.py': '', 'pkg/laps.py': code('', 'end - start'), 'tests/test_laps.py': TESTS('') } },
          { subject: 'fix: laps are never negative', files: { 'pkg/laps.py': code(...fix), 'tests/test_laps.py': TESTS(SECOND) } },
        ],
        'python-env-repo-',
      )
      fixture = await createExperimentFixture([], { seeds: 1, timeoutSeconds: 120, oracleTimeoutSeconds: 120 })
      const run = (args: readonly string[]) => cli(args, env)
      const harvest = await run([
        'harvest',
        '--repo',
        repo.dir,
        '--out',
        path.join(fixture.setDir, 'candidates.json'),
        '--source',
        'pkg/**/*.py',
        '--tests',
        'tests/**/*.py',
        '--test-command',
        'python -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}',
      ])
      expect(harvest.exitCode, harvest.all).toBe(0)
      await mkdir(path.join(fixture.setDir, 'prompts'), { recursive: true })
      await writeFile(path.join(fixture.setDir, 'prompts', `${repo.commits[1]!.slice(0, 12)}.md`), 'A lap from 4 back to 1 comes out negative.\n')
      const select = await run(['select', '--candidates', path.join(fixture.setDir, 'candidates.json'), '--out', fixture.setDir, '--seed', '1', '--count', '1'])
      expect(select.exitCode, select.all).toBe(0)
      validateOutput = (await run(['validate', fixture.setDir])).all
    }, 600_000)

    afterAll(async () => {
      await rm(scratch, { recursive: true, force: true })
      await rm(repo.dir, { recursive: true, force: true })
      await rm(fixture.root, { recursive: true, force: true })
    })

    it('validate: gold solves the task and noop does not', () => {
      expect((validateOutput.match(/^\s*001-\S+\s+solved\s+unsolved/gm) ?? []).length, validateOutput).toBe(1)
    })

    it('the runs judge it as validate did, gold solved and noop unsolved, and versions.toolchain names the interpreter', async () => {
      const result = await fixture.vitest([], { env })
      expect(result.exitCode, result.all).toBe(0)
      const runs = await fixture.runs()
      expect(runs.map((run) => [run.arm, run.outcome]).sort()).toEqual([
        ['gold', 'solved'],
        ['noop', 'unsolved'],
      ])
      for (const run of runs) expect((run.versions as { toolchain: string }).toolchain).toContain(toolchain)
      expect((await readdir(fixture.setDir)).filter((name) => /^\d{3}-/.test(name))).toHaveLength(1)
    }, 600_000)
  })
}
