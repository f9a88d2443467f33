import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, test } from 'vitest'
import { repoRoot } from '../helpers/experiment-fixture.ts'

// The real CLI in a fresh project folder. That the files it writes load in Vitest with the installed
// package is tested in test/package/installed-package.test.ts.

const bin = path.join(repoRoot, 'bin', 'task-outcome.js')
const init = (cwd: string, args: string[] = []) => execa(process.execPath, [bin, 'init', ...args], { cwd, reject: false, all: true })
const project = () => mkdtemp(path.join(os.tmpdir(), 'task-outcome-init-'))

describe('task-outcome init', () => {
  test('in a CommonJS project without a Vitest config: the experiment importing the package, the example, a .mts config naming both, the ignored files, the next commands', async () => {
    const root = await project()
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'user', version: '1.0.0', type: 'commonjs' }))
    const result = await init(root)
    expect(result.exitCode, result.all).toBe(0)
    const experiment = await readFile(path.join(root, 'tasks', 'pilot', 'experiment.ts'), 'utf8')
    expect(experiment).toContain("from 'task-outcome'")
    expect(experiment).not.toMatch(/from '\.{1,2}\//)
    expect(experiment).toContain("name: 'pilot'")
    expect(experiment).toContain("name: 'pilot-smoke'")
    // A .ts config with ESM syntax in a CommonJS package makes Vite warn on every run; a .mts one is ESM anywhere.
    expect(existsSync(path.join(root, 'vitest.config.ts'))).toBe(false)
    const config = await readFile(path.join(root, 'vitest.config.mts'), 'utf8')
    expect(config).toContain("await experimentProject('tasks/pilot/experiment.ts', { exportName: 'pilot' }),")
    expect(config).toContain("await experimentProject('tasks/pilot/experiment.ts', { exportName: 'smoke' }),")
    expect(config).toContain("await experimentProject('tasks/example/experiment.ts'),")
    expect(config).toContain("from 'task-outcome'")
    expect((await readFile(path.join(root, '.gitignore'), 'utf8')).split('\n')).toEqual(
      expect.arrayContaining(['node_modules', 'bench/task_outcome/*/artifacts/', 'bench/task_outcome/*/transcripts/']),
    )
    const next = result.stdout
      .split('\n')
      .slice(result.stdout.split('\n').indexOf('Next:') + 1)
      .filter((line) => line.trim() !== '')
    expect(next.map((line) => line.trim().split(' ').slice(0, 3).join(' '))).toEqual(['npx vitest run', 'npx task-outcome harvest', 'npx task-outcome select', 'npx vitest run'])
    expect(next[0]).toContain('--project example ')
    expect(next[3]).toContain('--project pilot-smoke')
  })

  test('the example: the three shipped folder tasks, the context hook and a scripted-model experiment importing the package', async () => {
    const root = await project()
    expect((await init(root)).exitCode).toBe(0)
    const example = path.join(root, 'tasks', 'example')
    expect((await readdir(example)).sort()).toEqual(['001-greeting-punctuation', '002-sum-skips-header', '003-config-default-port', 'context-tool', 'experiment.ts'])
    for (const task of ['001-greeting-punctuation', '002-sum-skips-header', '003-config-default-port']) {
      expect(await readFile(path.join(example, task, 'task.md'), 'utf8')).toBe(await readFile(path.join(repoRoot, 'tasks', 'examples', task, 'task.md'), 'utf8'))
      expect((await stat(path.join(example, task, 'verify.sh'))).mode & 0o111).not.toBe(0)
    }
    expect((await readdir(path.join(example, 'context-tool'))).sort()).toEqual(['likely-files.mjs', 'settings.json'])
    const experiment = await readFile(path.join(example, 'experiment.ts'), 'utf8')
    expect(experiment).toContain("from 'task-outcome'")
    expect(experiment).toContain("name: 'example'")
    expect(experiment).toContain('options: { scriptedModel: true }')
    expect(experiment).not.toMatch(/env: \{ pass/)
  })

  test('in an ES module project it writes vitest.config.ts', async () => {
    const root = await project()
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'user', version: '1.0.0', type: 'module' }))
    expect((await init(root)).exitCode).toBe(0)
    expect(await readFile(path.join(root, 'vitest.config.ts'), 'utf8')).toContain("await experimentProject('tasks/example/experiment.ts'),")
    expect(existsSync(path.join(root, 'vitest.config.mts'))).toBe(false)
  })

  test('--set names the folder and both experiments', async () => {
    const root = await project()
    expect((await init(root, ['--set', 'ufo'])).exitCode).toBe(0)
    const experiment = await readFile(path.join(root, 'tasks', 'ufo', 'experiment.ts'), 'utf8')
    expect(experiment).toContain("name: 'ufo'")
    expect(experiment).toContain("name: 'ufo-smoke'")
  })

  test('adds the experiments to a config that already lists task-outcome projects, keeping what it had', async () => {
    const root = await project()
    expect((await init(root, ['--set', 'first'])).exitCode).toBe(0)
    const before = await readFile(path.join(root, 'vitest.config.mts'), 'utf8')
    const result = await init(root, ['--set', 'second'])
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toContain('added the experiments to the projects of vitest.config.mts')
    expect(result.stdout).toContain('tasks/example/ was left as it is')
    const after = await readFile(path.join(root, 'vitest.config.mts'), 'utf8')
    expect(after).toContain("await experimentProject('tasks/second/experiment.ts', { exportName: 'pilot' }),")
    expect(after).toContain("await experimentProject('tasks/first/experiment.ts', { exportName: 'pilot' }),")
    expect(after.split("await experimentProject('tasks/example/experiment.ts'),")).toHaveLength(2)
    expect(after.length).toBeGreaterThan(before.length)
  })

  test('leaves a config it cannot edit safely as it was and prints the two lines to add', async () => {
    const root = await project()
    const config = "import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'] } })\n"
    await writeFile(path.join(root, 'vitest.config.mjs'), config)
    const result = await init(root)
    expect(result.exitCode, result.all).toBe(0)
    expect(await readFile(path.join(root, 'vitest.config.mjs'), 'utf8')).toBe(config)
    expect(result.stdout).toContain('vitest.config.mjs was left as it is (it does not import experimentProject from task-outcome yet)')
    expect(result.stdout).toContain("    import { experimentProject } from 'task-outcome'")
    expect(result.stdout).toContain(
      "    await experimentProject('tasks/pilot/experiment.ts', { exportName: 'pilot' }), await experimentProject('tasks/pilot/experiment.ts', { exportName: 'smoke' }),",
    )
    expect(existsSync(path.join(root, 'vitest.config.ts'))).toBe(false)
  })

  test('adds to .gitignore only the patterns it lacks', async () => {
    const root = await project()
    await writeFile(path.join(root, '.gitignore'), 'node_modules/\nbench/task_outcome/*/artifacts/')
    expect((await init(root)).exitCode).toBe(0)
    const lines = (await readFile(path.join(root, '.gitignore'), 'utf8')).split('\n')
    expect(lines.filter((line) => line === 'bench/task_outcome/*/artifacts/')).toHaveLength(1)
    expect(lines).toContain('bench/task_outcome/*/transcripts/')
    expect(lines).toContain('node_modules/')
    expect(lines).toContain('node_modules')
  })

  test('the .gitignore it writes keeps a node_modules link out of git, which node_modules/ alone would not', async () => {
    const root = await project()
    await execa('git', ['init', '-q'], { cwd: root })
    await mkdir(path.join(root, 'prepared'))
    await symlink('prepared', path.join(root, 'node_modules'))
    await writeFile(path.join(root, '.gitignore'), 'node_modules/\nprepared/\n')
    expect((await execa('git', ['check-ignore', '-q', 'node_modules'], { cwd: root, reject: false })).exitCode).toBe(1)
    expect((await init(root)).exitCode).toBe(0)
    expect((await execa('git', ['check-ignore', '-q', 'node_modules'], { cwd: root, reject: false })).exitCode).toBe(0)
  })

  test('refuses --set example, the folder of the example it writes', async () => {
    const root = await project()
    const result = await init(root, ['--set', 'example'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toBe('task-outcome: --set example: that is the folder of the example init writes; choose another name')
    expect(existsSync(path.join(root, 'tasks'))).toBe(false)
  })

  test('never overwrites an experiment: a second init of the same set stops with one line', async () => {
    const root = await project()
    expect((await init(root)).exitCode).toBe(0)
    const file = path.join(root, 'tasks', 'pilot', 'experiment.ts')
    await writeFile(file, '// edited by hand\n')
    const again = await init(root)
    expect(again.exitCode).toBe(1)
    expect(again.stderr.trim()).toBe('task-outcome: tasks/pilot/experiment.ts exists already; init never overwrites an experiment (edit it, or choose another --set)')
    expect(await readFile(file, 'utf8')).toBe('// edited by hand\n')
  })

  test('refuses a set name that cannot name a Vitest project', async () => {
    const root = await project()
    const result = await init(root, ['--set', 'My Set'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toMatch(/^task-outcome: --set "My Set": use lowercase letters/)
    expect(existsSync(path.join(root, 'tasks'))).toBe(false)
  })
})
