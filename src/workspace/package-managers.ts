import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'

/**
 * The package managers a prepare command may call besides npm: pnpm, yarn
 * classic and yarn berry, each pinned as a dependency of task-outcome (so the
 * CLI that installs a task's dependencies is the same for every user and
 * every run, never one the repository or the machine's PATH brings), and the
 * caches the user filled once with network, which a prepare command reads
 * without network: the pnpm store, yarn classic's cache and yarn berry's
 * global folder. `yarn` is one command for both yarns: the lockfile's format
 * picks the CLI, as corepack picks it from a repository.
 */

/** A pinned CLI: its package folder, the script node runs, its version. */
export interface PinnedCli {
  readonly name: string
  readonly folder: string
  readonly script: string
  readonly version: string
}

const require = createRequire(import.meta.url)

/** The installed package's folder, found the way Node looks for it (pnpm's `exports` hide its package.json from `require.resolve`). */
function packageFolder(name: string): string {
  for (const dir of require.resolve.paths(name) ?? []) if (existsSync(path.join(dir, name, 'package.json'))) return realpathSync(path.join(dir, name))
  throw new Error(`task-outcome's dependency ${name} is not installed: run npm install`)
}

function pinned(name: string, script: string): PinnedCli {
  const folder = packageFolder(name)
  const version = (JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { version: string }).version
  return { name, folder, script: path.join(folder, script), version }
}

let cached: { pnpm: PinnedCli; yarnClassic: PinnedCli; yarnBerry: PinnedCli } | undefined

/** The pinned pnpm, yarn classic and yarn berry. */
export function pinnedClis(): { pnpm: PinnedCli; yarnClassic: PinnedCli; yarnBerry: PinnedCli } {
  cached ??= { pnpm: pinned('pnpm', 'bin/pnpm.cjs'), yarnClassic: pinned('yarn', 'bin/yarn.js'), yarnBerry: pinned('@yarnpkg/cli-dist', 'bin/yarn.js') }
  return cached
}

/** `pnpm 10.34.8, yarn 1.22.22, yarn 4.18.1`: part of a prepared folder's cache key and of the messages. */
export function packageManagerVersions(): string {
  const { pnpm, yarnClassic, yarnBerry } = pinnedClis()
  return `pnpm ${pnpm.version}, yarn ${yarnClassic.version}, yarn ${yarnBerry.version}`
}

type Env = Readonly<Record<string, string | undefined>>

/** The pnpm store the user filled (`pnpm store path`): `npm_config_store_dir`, else `$PNPM_HOME/store`, else `$XDG_DATA_HOME/pnpm/store`. */
export function pnpmStoreFolder(env: Env = process.env): string {
  const configured = env.npm_config_store_dir ?? env.NPM_CONFIG_STORE_DIR
  if (configured !== undefined && configured !== '') return path.resolve(configured)
  if (env.PNPM_HOME !== undefined && env.PNPM_HOME !== '') return path.join(env.PNPM_HOME, 'store')
  return path.join(env.XDG_DATA_HOME ?? path.join(env.HOME ?? os.homedir(), '.local', 'share'), 'pnpm', 'store')
}

/** yarn classic's cache (`yarn cache dir` without its `v6`): `YARN_CACHE_FOLDER`, else `$XDG_CACHE_HOME/yarn`. */
export function yarnClassicCacheFolder(env: Env = process.env): string {
  const configured = env.YARN_CACHE_FOLDER
  if (configured !== undefined && configured !== '') return path.resolve(configured)
  return path.join(env.XDG_CACHE_HOME ?? path.join(env.HOME ?? os.homedir(), '.cache'), 'yarn')
}

/** yarn berry's global folder (its cache is `<folder>/cache`): `YARN_GLOBAL_FOLDER`, else `~/.yarn/berry`. */
export function yarnBerryGlobalFolder(env: Env = process.env): string {
  const configured = env.YARN_GLOBAL_FOLDER
  if (configured !== undefined && configured !== '') return path.resolve(configured)
  return path.join(env.HOME ?? os.homedir(), '.yarn', 'berry')
}

/** What a prepare command gets for the pinned package managers. */
export interface PackageManagerSetup {
  /** Scripts to write into a folder put first on the prepare command's PATH (name → content). */
  readonly bin: Readonly<Record<string, string>>
  /** Environment variables for the prepare command. */
  readonly env: Readonly<Record<string, string>>
  /** Host folders the command reads (bound read-only at the same path). */
  readonly readOnly: readonly string[]
  /** Read-only binds of the pnpm store's content below `storeView` (its own registry of projects stays writable). */
  readonly mounts: readonly { readonly source: string; readonly target: string }[]
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`

/**
 * The setup for a prepare command run with `node` in a folder whose
 * writable `storeView` becomes the pnpm store: pnpm writes a link to every
 * project it installs into its store's `projects` folder, so the command gets
 * a store of its own in which only the content folders are the user's
 * (read-only); yarn classic reads its cache read-only as it is, and yarn
 * berry its global cache with offline mode on. No install script runs.
 */
export function packageManagerSetup(node: string, storeView: string, env: Env = process.env): PackageManagerSetup {
  const { pnpm, yarnClassic, yarnBerry } = pinnedClis()
  const store = pnpmStoreFolder(env)
  const mounts: { source: string; target: string }[] = []
  if (existsSync(store)) {
    for (const layout of readdirSync(store)) {
      const dir = path.join(store, layout)
      if (!/^v\d+$/.test(layout) || !existsSync(dir)) continue
      for (const part of readdirSync(dir)) {
        if (part === 'projects' || part === 'tmp') continue
        mounts.push({ source: path.join(dir, part), target: path.join(storeView, layout, part) })
      }
    }
  }
  const classic = yarnClassicCacheFolder(env)
  const berry = yarnBerryGlobalFolder(env)
  const yarn = [
    '#!/bin/sh',
    // The lockfile's format picks the yarn: berry's begins its entries with __metadata.
    'if grep -q "^__metadata:" yarn.lock 2>/dev/null; then',
    `  YARN_ENABLE_GLOBAL_CACHE=true YARN_GLOBAL_FOLDER=${quote(berry)} YARN_ENABLE_OFFLINE_MODE=true YARN_ENABLE_SCRIPTS=false YARN_IGNORE_PATH=true YARN_ENABLE_TELEMETRY=false \\`,
    `    exec ${quote(node)} ${quote(yarnBerry.script)} "$@"`,
    'fi',
    `YARN_CACHE_FOLDER=${quote(classic)} YARN_IGNORE_PATH=1 exec ${quote(node)} ${quote(yarnClassic.script)} "$@"`,
    '',
  ].join('\n')
  return {
    bin: {
      pnpm: `#!/bin/sh\nexec ${quote(node)} ${quote(pnpm.script)} "$@"\n`,
      yarn,
    },
    env: { npm_config_store_dir: storeView, npm_config_package_import_method: 'copy', npm_config_update_notifier: 'false' },
    readOnly: [pnpm.folder, yarnClassic.folder, yarnBerry.folder, ...[classic, berry].filter((dir) => existsSync(dir))],
    mounts,
  }
}
