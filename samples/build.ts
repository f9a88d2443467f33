/**
 * Builds a bundled sample repository from its readable history, bit for bit
 * the same every time: `samples/<name>/history/NN-<slug>/` holds one commit
 * each (`commit.json` with its date and message and, optionally, paths to
 * delete; `files/` with the full new contents of the files it adds or
 * changes). Commits get a fixed author and committer, the dates in
 * `commit.json`, and no user or system git configuration, so the same history
 * gives the same commit ids on any machine; the bundle packs them with one
 * thread, so the same git version gives the same bytes.
 *
 *   npx tsx samples/build.ts ledgerline          rebuild samples/ledgerline/ledgerline.bundle and its manifest
 *   npx tsx samples/build.ts ledgerline --check  rebuild in a temp folder and compare with the committed ones
 */
import { createHash } from 'node:crypto'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { simpleGit, type SimpleGit } from 'simple-git'

/** The folder holding the samples (this file's folder). */
export const SAMPLES_DIR = path.dirname(fileURLToPath(import.meta.url))

/** Who wrote the sample commits (fixed, so commit ids do not depend on the machine). */
export const SAMPLE_AUTHOR = { name: 'Ledgerline Maintainers', email: 'maintainers@ledgerline.example' } as const

/** One commit of a sample's history. */
export interface HistoryStep {
  /** The step's folder. */
  readonly dir: string
  /** ISO 8601 date, used as both author and committer date. */
  readonly date: string
  /** The full commit message (subject, blank line, body). */
  readonly message: string
  /** Paths the commit deletes. */
  readonly delete: readonly string[]
}

/** What a build produced: the commits, and the bundle's identity. */
export interface SampleManifest {
  readonly name: string
  /** The tip commit of `main`. */
  readonly tip: string
  /** Every commit, oldest first. */
  readonly commits: readonly { readonly id: string; readonly subject: string }[]
  /** `git --version` of the build: the bundle's bytes are reproducible with the same git. */
  readonly git: string
  readonly bundleSha256: string
}

/** Paths of a sample's parts. */
export function samplePaths(name: string, root: string = SAMPLES_DIR) {
  const dir = path.join(root, name)
  return {
    dir,
    history: path.join(dir, 'history'),
    bundle: path.join(dir, `${name}.bundle`),
    manifest: path.join(dir, `${name}.manifest.json`),
  }
}

/** Reads the history steps in order, checking each `commit.json`. */
export async function readHistory(historyDir: string): Promise<HistoryStep[]> {
  const names = (await readdir(historyDir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
  const steps: HistoryStep[] = []
  for (const name of names) {
    const file = path.join(historyDir, name, 'commit.json')
    const raw = JSON.parse(await readFile(file, 'utf8')) as { date?: unknown; message?: unknown; delete?: unknown }
    if (typeof raw.date !== 'string' || Number.isNaN(Date.parse(raw.date))) throw new Error(`${file}: "date" must be an ISO 8601 date`)
    if (typeof raw.message !== 'string' || raw.message.trim() === '') throw new Error(`${file}: "message" must be the commit message`)
    const deletions = raw.delete ?? []
    if (!Array.isArray(deletions) || !deletions.every((entry) => typeof entry === 'string')) throw new Error(`${file}: "delete" must be a list of paths`)
    steps.push({ dir: path.join(historyDir, name), date: raw.date, message: raw.message, delete: deletions })
  }
  return steps
}

/** A simple-git client with no user or system configuration and a fixed identity and date. */
function sampleGit(dir: string, date = '2000-01-01T00:00:00Z'): SimpleGit {
  const env = {
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: SAMPLE_AUTHOR.name,
    GIT_AUTHOR_EMAIL: SAMPLE_AUTHOR.email,
    GIT_COMMITTER_NAME: SAMPLE_AUTHOR.name,
    GIT_COMMITTER_EMAIL: SAMPLE_AUTHOR.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  }
  return simpleGit({
    baseDir: dir,
    unsafe: { allowUnsafeConfigPaths: true },
    allowEnvironment: Object.keys(env),
    config: ['core.autocrlf=false', 'core.fileMode=false', 'commit.gpgsign=false', 'init.defaultBranch=main', 'pack.threads=1'],
  } as Parameters<typeof simpleGit>[0]).env({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), ...env })
}

/** Commits every step of `historyDir` into a new repository at `repoDir`; returns the commits, oldest first. */
export async function buildRepository(historyDir: string, repoDir: string): Promise<{ id: string; subject: string }[]> {
  await mkdir(repoDir, { recursive: true })
  await sampleGit(repoDir).raw(['init', '-q', '-b', 'main'])
  const commits: { id: string; subject: string }[] = []
  for (const step of await readHistory(historyDir)) {
    const files = path.join(step.dir, 'files')
    await cp(files, repoDir, { recursive: true, force: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    })
    for (const file of step.delete) await rm(path.join(repoDir, file), { force: true })
    const git = sampleGit(repoDir, step.date)
    await git.raw(['add', '-A', '.'])
    await git.raw(['commit', '-q', '--no-verify', '--cleanup=strip', '-m', step.message])
    commits.push({ id: (await git.revparse(['HEAD'])).trim(), subject: step.message.split('\n')[0]! })
  }
  return commits
}

/** Builds the sample's repository and writes its bundle and manifest to `bundleFile` / `manifestFile`. */
export async function buildSample(name: string, out: { bundle: string; manifest: string }, root: string = SAMPLES_DIR): Promise<SampleManifest> {
  const paths = samplePaths(name, root)
  const work = await mkdtemp(path.join(os.tmpdir(), `sample-${name}-`))
  try {
    const repo = path.join(work, name)
    const commits = await buildRepository(paths.history, repo)
    const git = sampleGit(repo)
    await mkdir(path.dirname(out.bundle), { recursive: true })
    await git.raw(['bundle', 'create', '-q', out.bundle, 'HEAD', 'main'])
    const manifest: SampleManifest = {
      name,
      tip: commits.at(-1)!.id,
      commits,
      git: (await git.raw(['--version'])).trim(),
      bundleSha256: createHash('sha256')
        .update(await readFile(out.bundle))
        .digest('hex'),
    }
    await writeFile(out.manifest, `${JSON.stringify(manifest, null, 2)}\n`)
    return manifest
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

/** Rebuilds a sample in a temp folder; returns the fresh manifest next to the committed one. */
export async function rebuildForCheck(name: string, root: string = SAMPLES_DIR): Promise<{ fresh: SampleManifest; committed: SampleManifest; freshBundle: Buffer }> {
  const paths = samplePaths(name, root)
  const work = await mkdtemp(path.join(os.tmpdir(), `sample-check-${name}-`))
  try {
    const fresh = await buildSample(name, { bundle: path.join(work, `${name}.bundle`), manifest: path.join(work, 'manifest.json') }, root)
    const committed = JSON.parse(await readFile(paths.manifest, 'utf8')) as SampleManifest
    return { fresh, committed, freshBundle: await readFile(path.join(work, `${name}.bundle`)) }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const name = argv.find((arg) => !arg.startsWith('-')) ?? 'ledgerline'
  if (argv.includes('--check')) {
    const { fresh, committed } = await rebuildForCheck(name)
    const sameHistory = fresh.tip === committed.tip
    const sameBytes = fresh.bundleSha256 === committed.bundleSha256
    process.stdout.write(`history: ${sameHistory ? 'identical' : `DIFFERS (built ${fresh.tip}, committed ${committed.tip})`}\n`)
    process.stdout.write(
      `bundle:  ${sameBytes ? 'identical bytes' : fresh.git === committed.git ? 'DIFFERENT BYTES' : `different bytes (built with ${fresh.git}, committed with ${committed.git})`}\n`,
    )
    return sameHistory && (sameBytes || fresh.git !== committed.git) ? 0 : 1
  }
  const paths = samplePaths(name)
  const manifest = await buildSample(name, { bundle: paths.bundle, manifest: paths.manifest })
  process.stdout.write(`${name}: ${manifest.commits.length} commits, tip ${manifest.tip}\n${path.relative(process.cwd(), paths.bundle)} sha256 ${manifest.bundleSha256}\n`)
  return 0
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`)
      process.exit(1)
    },
  )
}
