import { simpleGit, type SimpleGit } from 'simple-git'

/** Fixed identity and dates for the harness's own commits: the same content gives the same commit id. */
export const HARNESS_GIT_ENV = {
  GIT_AUTHOR_NAME: 'task-outcome',
  GIT_AUTHOR_EMAIL: 'task-outcome@localhost',
  GIT_COMMITTER_NAME: 'task-outcome',
  GIT_COMMITTER_EMAIL: 'task-outcome@localhost',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
} as const

/** A simple-git client for a harness-owned repository: no user config, no hooks, no signing, fixed identity. */
export function harnessGit(dir: string): SimpleGit {
  return simpleGit({
    baseDir: dir,
    // GIT_CONFIG_GLOBAL=/dev/null keeps the user's git config (hooks, signing, templates) out of harness repositories.
    unsafe: { allowUnsafeConfigPaths: true } as Record<string, boolean>,
    allowEnvironment: ['GIT_CONFIG_GLOBAL', ...Object.keys(HARNESS_GIT_ENV)],
    // safe.directory: a template belongs to the sandbox uid when the harness runs as root (sandbox/identity.ts).
    config: ['commit.gpgsign=false', 'init.defaultBranch=main', 'core.autocrlf=false', 'safe.directory=*'],
  }).env({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    GIT_CONFIG_GLOBAL: '/dev/null',
    ...HARNESS_GIT_ENV,
  })
}

/**
 * Makes `dir` (already holding the files) a one-commit repository and returns
 * the commit id.
 */
export async function commitAll(dir: string, message: string): Promise<string> {
  const git = harnessGit(dir)
  await git.init()
  await git.add(['-A', '.'])
  await git.raw(['commit', '-q', '--allow-empty', '--no-verify', '-m', message])
  return (await git.revparse(['HEAD'])).trim()
}
