import { mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { Bench } from 'tinybench'
import { DEFAULT_LIMITS, isolatedCommandLine, mountOverlay, SANDBOX_HOST_PATH, type MountedOverlay } from '../../src/sandbox/index.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import { readerGit } from '../../src/workspace/repository.ts'
import { TaskGuard } from '../../src/runs/task-guard.ts'
import { RACY_MARGIN_MS, StatSeal } from '../../src/workspace/stat-seal.ts'
import { parentTemplate, removeTemplate } from '../../src/workspace/template.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { GENERATED, generatedRepository } from './harvest.bench.ts'
import { benchRows, printBenchTable } from './table.ts'
import { repositoryName } from '../../src/tasks/repository-name.ts'

/**
 * A git-fix run's workspace on the 5,000-file, 2,000-commit repository of
 * harvest.bench.ts. Baseline in the same run: a plain `git clone` of the
 * repository (local, hard-linked objects, full checkout), what a harness
 * without templates would do per run. The task's template is exported once
 * and checked once, as the first run of a process does (`git status`, and the
 * guard's content check against the commit); every later run of the process
 * relies on the template's seal (`StatSeal`: one `lstat` per entry), checked
 * while the overlay mounts. Rows: the workspace (what a run waits for before
 * its sandbox starts), the same with the snapshot the executor takes after
 * arm setup, the mount alone, the seal's check alone, the guard's template
 * checks of one run (before it and before its oracle), the plain copy
 * `sandbox: 'none'` pays, the sandbox's own start-up, and the one-commit
 * export each run would pay without a template. Targets: a workspace under
 * 20 ms, at least 7× faster than `git clone` on tmpfs and 100× on disk;
 * sandbox start-up under 50 ms. Measured where workspaces go by default (the
 * system temp folder) and on tmpfs; the machine's load is printed with each
 * table, since every figure here moves with it.
 */

const TARGET_MS = 20

/** As a sandboxed run makes its workspace: an overlay with its upper layer and HOME on a tmpfs of the default disk limit. */
const RUN = { overlay: true, diskMb: DEFAULT_LIMITS.diskMb }
const STARTUP_TARGET_MS = 50

const WORKSPACE = 'workspace (seal checked while the overlay mounts)'
const STARTUP = 'sandbox start-up: `true` in bwrap inside the overlay'
const BASELINE = 'git clone (baseline)'

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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
    repository: repositoryName(repo),
    oracleDir: path.join(root, 'oracle'),
    goldPatch: null,
    metadata: { id: '001', slug: 'bench', kind: 'git-fix', repo, base, fix, gold_files: ['x'], test_files: ['y'], FAIL_TO_PASS: ['z'], PASS_TO_PASS: [], test_command: '{junit}' },
  } satisfies GitFixTask

  await removeTemplate(repo, base)
  const exportStarted = performance.now()
  const template = await parentTemplate(repo, base)
  const exportMs = performance.now() - exportStarted
  // The first use in a process, once the template is older than the racy margin (a seal of files written a moment
  // ago is not trusted): `git status`, then the guard's content check; both seal the template for later runs.
  await sleep(RACY_MARGIN_MS + 100)
  const statusStarted = performance.now()
  await parentTemplate(repo, base)
  const statusMs = performance.now() - statusStarted
  const firstGuard = await TaskGuard.beforeRun(task, root, {})
  const contentStarted = performance.now()
  await firstGuard.watchTemplate(template)
  const contentMs = performance.now() - contentStarted
  const seal = await StatSeal.take(template)
  console.log(
    `the task's template: exported once per task in ${exportMs.toFixed(0)} ms; first use in a process: \`git status\` ${statusMs.toFixed(0)} ms, the guard's content check (every blob against the commit) ${contentMs.toFixed(0)} ms; ${seal.size} entries sealed`,
  )

  // The same rows on the system temp folder (a disk here) and, where there is one, on tmpfs.
  const places: { label: string; dir: string; ratioTarget: number }[] = [{ label: `${os.tmpdir()} (disk)`, dir: root, ratioTarget: 100 }]
  if (
    await stat('/dev/shm').then(
      (s) => s.isDirectory(),
      () => false,
    )
  )
    places.push({ label: '/dev/shm (tmpfs)', dir: await mkdtemp('/dev/shm/bench-workspace-'), ratioTarget: 7 })
  for (const place of places) {
    const loadBefore = load()
    let clones = 0
    let pending: Workspace | undefined
    const sandboxed: Workspace | undefined = await createGitFixWorkspace(task, place.dir, RUN)
    let mounted: { overlay: MountedOverlay; dir: string } | undefined
    const bench = new Bench({ time: 4000, iterations: 8, warmupIterations: 1 })
    bench
      .add(
        BASELINE,
        async () => {
          await git.raw(['clone', '--quiet', repo, path.join(place.dir, `clone-${clones++}`)])
        },
        { afterEach: async () => rm(path.join(place.dir, `clone-${clones - 1}`), { recursive: true, force: true }) },
      )
      .add(
        WORKSPACE,
        async () => {
          pending = await createGitFixWorkspace(task, place.dir, RUN)
        },
        { afterEach: async () => pending?.dispose() },
      )
      .add(
        'workspace + snapshot',
        async () => {
          pending = await createGitFixWorkspace(task, place.dir, RUN)
          await pending.snapshot()
        },
        { afterEach: async () => pending?.dispose() },
      )
      .add(
        'the overlay mount alone',
        async () => {
          const dir = await mkdtemp(path.join(place.dir, 'mount-'))
          const overlay = await mountOverlay(
            { lower: [template], upper: path.join(dir, 'layers', 'upper'), work: path.join(dir, 'layers', 'work'), target: path.join(dir, 'ws') },
            { diskMb: RUN.diskMb },
          )
          mounted = { overlay, dir }
        },
        {
          afterEach: async () => {
            await mounted?.overlay.release()
            await rm(mounted!.dir, { recursive: true, force: true })
          },
        },
      )
      .add(`the seal's check alone (${seal.size} lstat)`, async () => {
        if ((await seal.firstMoved()) !== undefined) throw new Error('the template moved during the benchmark')
      })
      .add("a run's template checks (guard: before the run + before the oracle)", async () => {
        const guard = await TaskGuard.beforeRun(task, root, {})
        await guard.watchTemplate(template)
        await guard.beforeOracle()
      })
      .add(
        'plain copy of the template (sandbox: none)',
        async () => {
          pending = await createGitFixWorkspace(task, place.dir, { overlay: false })
        },
        { afterEach: async () => pending?.dispose() },
      )
      .add(STARTUP, async () => {
        const line = isolatedCommandLine(
          { writable: [], readOnly: [], overlay: { pid: sandboxed!.overlay!.pid, target: sandboxed!.agentDir } },
          { file: '/bin/true', args: [], cwd: sandboxed!.agentDir, env: { PATH: '/usr/bin:/bin' } },
        )
        await execa(line.file, line.args, { env: { PATH: SANDBOX_HOST_PATH }, extendEnv: false })
      })
    let exports = 0
    bench.add(
      'one-commit export per run (no template)',
      async () => {
        await parentTemplate(repo, base, { root: path.join(place.dir, `export-${exports++}`) })
      },
      { afterEach: async () => rm(path.join(place.dir, `export-${exports - 1}`), { recursive: true, force: true }) },
    )
    await bench.run()
    await sandboxed.dispose()
    const rows = benchRows(bench)
    printBenchTable(`A run's workspace, ${GENERATED.files}-file repository, in ${place.label}; load average ${loadBefore} before, ${load()} after`, rows, {
      baseline: BASELINE,
      targetMs: TARGET_MS,
    })
    const row = (name: string) => rows.find((candidate) => candidate.name === name)!
    const [clone, workspace, startup] = [row(BASELINE), row(WORKSPACE), row(STARTUP)]
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met')
    console.log(
      `  workspace: mean ${workspace.meanMs.toFixed(1)} ms, p50 ${workspace.p50Ms.toFixed(1)} ms (target < ${TARGET_MS} ms: ${verdict(workspace.meanMs < TARGET_MS)}); ` +
        `${(clone.meanMs / workspace.meanMs).toFixed(1)}× faster than git clone by the mean, ${(clone.p50Ms / workspace.p50Ms).toFixed(1)}× by p50 (target ≥ ${place.ratioTarget}×: ${verdict(clone.meanMs / workspace.meanMs >= place.ratioTarget)}); ` +
        `sandbox start-up mean ${startup.meanMs.toFixed(1)} ms (target < ${STARTUP_TARGET_MS} ms: ${verdict(startup.meanMs < STARTUP_TARGET_MS)})`,
    )
    if (place.dir !== root) await rm(place.dir, { recursive: true, force: true })
  }
  await removeTemplate(repo, base)
  await rm(root, { recursive: true, force: true })
}
