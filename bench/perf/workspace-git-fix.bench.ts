import { mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { Bench } from 'tinybench'
import { isolatedCommandLine, mountOverlay, SANDBOX_HOST_PATH, type MountedOverlay } from '../../src/sandbox/index.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import { readerGit } from '../../src/workspace/repository.ts'
import { parentTemplate, removeTemplate } from '../../src/workspace/template.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { GENERATED, generatedRepository } from './harvest.bench.ts'
import { benchRows, printBenchTable } from './table.ts'

/**
 * A git-fix run's workspace on the 5,000-file, 2,000-commit repository of
 * harvest.bench.ts. Baseline in the same run: a plain `git clone` of the
 * repository (local, hard-linked objects, full checkout), what a harness
 * without templates would do per run. The workspace rows copy the task's
 * template (exported once, timed once below); the second adds the snapshot the
 * executor takes after arm setup; the last row is what each run would pay
 * to get the same one-commit repository without a template. The workspace is an overlay
 * of the template (a mount, whatever the size); the plain copy is what `sandbox: 'none'` pays; the last row is
 * the sandbox's own start-up per process. Targets: a workspace under 20 ms, at least 7× faster than `git clone`
 * on tmpfs and 100× on disk; sandbox start-up under 50 ms.
 * Measured where workspaces go by default (the system temp folder) and on
 * tmpfs, since the cost is almost all file creation.
 */

const TARGET_MS = 20

export default async function run(): Promise<void> {
  const repo = await generatedRepository()
  const git = readerGit(repo)
  const fix = (await git.raw(['rev-list', '-1', '--grep=^fix:', 'HEAD'])).trim()
  const base = (await git.raw(['rev-parse', `${fix}^`])).trim()
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-workspace-'))
  const task = {
    kind: 'git-fix',
    id: '001-bench',
    dir: root,
    prompt: 'bench',
    files: [],
    repo,
    oracleDir: path.join(root, 'oracle'),
    goldPatch: null,
    metadata: { id: '001', slug: 'bench', kind: 'git-fix', repo, base, fix, gold_files: ['x'], test_files: ['y'], FAIL_TO_PASS: ['z'], PASS_TO_PASS: [], test_command: '{junit}' },
  } satisfies GitFixTask

  await removeTemplate(repo, base)
  const exportStarted = performance.now()
  await parentTemplate(repo, base)
  const exportMs = performance.now() - exportStarted
  console.log(`the task's template (exported once per task): ${exportMs.toFixed(0)} ms`)

  // The same rows on the system temp folder (a disk here) and, where there is one, on tmpfs: creating 5,000
  // files is what a workspace costs, and its price is the file system's.
  const places: { label: string; dir: string }[] = [{ label: os.tmpdir(), dir: root }]
  if (await stat('/dev/shm').then((s) => s.isDirectory(), () => false)) places.push({ label: '/dev/shm (tmpfs)', dir: await mkdtemp('/dev/shm/bench-workspace-') })
  for (const place of places) {
    let clones = 0
    let pending: Workspace | undefined
    const sandboxed: Workspace | undefined = await createGitFixWorkspace(task, place.dir)
    const template = await parentTemplate(repo, base)
    let mounted: { overlay: MountedOverlay; dir: string } | undefined
    const bench = new Bench({ time: 4000, iterations: 8, warmupIterations: 1 })
    bench
      .add('git clone (baseline)', async () => {
        await git.raw(['clone', '--quiet', repo, path.join(place.dir, `clone-${clones++}`)])
      }, { afterEach: async () => rm(path.join(place.dir, `clone-${clones - 1}`), { recursive: true, force: true }) })
      .add('workspace from the template', async () => {
        pending = await createGitFixWorkspace(task, place.dir)
      }, { afterEach: async () => pending?.dispose() })
      .add('workspace from the template + snapshot', async () => {
        pending = await createGitFixWorkspace(task, place.dir)
        await pending.snapshot()
      }, { afterEach: async () => pending?.dispose() })
      .add('the overlay mount alone (no template check)', async () => {
        const dir = await mkdtemp(path.join(place.dir, 'mount-'))
        const overlay = await mountOverlay({ lower: [template], upper: path.join(dir, 'upper'), work: path.join(dir, 'work'), target: path.join(dir, 'ws') })
        mounted = { overlay, dir }
      }, { afterEach: async () => { await mounted?.overlay.release(); await rm(mounted!.dir, { recursive: true, force: true }) } })
      .add('plain copy of the template (sandbox: none)', async () => {
        pending = await createGitFixWorkspace(task, place.dir, { overlay: false })
      }, { afterEach: async () => pending?.dispose() })
      .add('sandbox start-up: `true` in bwrap inside the overlay', async () => {
        const line = isolatedCommandLine(
          { writable: [], readOnly: [], overlay: { pid: sandboxed!.overlay!.pid, target: sandboxed!.agentDir } },
          { file: '/bin/true', args: [], cwd: sandboxed!.agentDir, env: { PATH: '/usr/bin:/bin' } },
        )
        await execa(line.file, line.args, { env: { PATH: SANDBOX_HOST_PATH }, extendEnv: false })
      })
    let exports = 0
    bench.add('one-commit export per run (no template)', async () => {
      await parentTemplate(repo, base, { root: path.join(place.dir, `export-${exports++}`) })
    }, { afterEach: async () => rm(path.join(place.dir, `export-${exports - 1}`), { recursive: true, force: true }) })
    await bench.run()
    await sandboxed.dispose()
    printBenchTable(`A run's workspace, ${GENERATED.files}-file repository, in ${place.label}`, benchRows(bench), { baseline: 'git clone (baseline)', targetMs: TARGET_MS })
    if (place.dir !== root) await rm(place.dir, { recursive: true, force: true })
  }
  await removeTemplate(repo, base)
  await rm(root, { recursive: true, force: true })
}
