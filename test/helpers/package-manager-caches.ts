import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { pinnedClis } from '../../src/workspace/package-managers.ts'
import { startLocalRegistry } from './local-registry.ts'
import { pinnedVitestVersion } from './vitest-lockfile.ts'

/**
 * A project tested by this repository's Vitest, locked by pnpm, yarn classic
 * and yarn berry (the pinned CLIs), with the caches those fill (a pnpm store,
 * yarn classic's cache, yarn berry's global folder) in folders of the test's
 * own, as a user fills them once with network: here from a registry on
 * 127.0.0.1 that serves what this repository's `npm ci` put in npm's cache.
 * `env` points the package managers (and task-outcome) at those caches.
 */
export interface PackageManagerCaches {
  /** package.json of the project (Vitest and, for yarn classic, which installs no peer, Vite). */
  readonly packageJson: string
  readonly pnpmLock: string
  readonly yarnClassicLock: string
  readonly yarnBerryLock: string
  /** `.yarnrc.yml` for berry (nodeLinker node-modules). */
  readonly yarnrc: string
  readonly env: Readonly<Record<string, string>>
}

/** Vite's version in this repository's lockfile (Vitest's peer). */
async function pinnedViteVersion(): Promise<string> {
  const lock = JSON.parse(await readFile(path.resolve(import.meta.dirname, '../../package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }
  return lock.packages['node_modules/vite']!.version
}

/** Fills the three caches below `root` and returns the lockfiles (about 30 s: three installs from 127.0.0.1). */
export async function fillPackageManagerCaches(root: string, name = 'fixture'): Promise<PackageManagerCaches> {
  await mkdir(root, { recursive: true })
  const registry = await startLocalRegistry('vitest')
  try {
    const { pnpm, yarnClassic, yarnBerry } = pinnedClis()
    const env = {
      npm_config_store_dir: path.join(root, 'pnpm-store'),
      YARN_CACHE_FOLDER: path.join(root, 'yarn-cache'),
      YARN_GLOBAL_FOLDER: path.join(root, 'yarn-berry'),
    }
    const packageJson = `${JSON.stringify({ name, version: '1.0.0', private: true, type: 'module', devDependencies: { vite: await pinnedViteVersion(), vitest: pinnedVitestVersion() } }, null, 2)}\n`
    const yarnrc = 'nodeLinker: node-modules\n'
    const install = async (script: string, args: string[], extra: Record<string, string>, files: Record<string, string>, lockfile: string): Promise<string> => {
      const dir = await mkdtemp(path.join(root, 'fill-'))
      try {
        await mkdir(dir, { recursive: true })
        for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text)
        const home = path.join(dir, '.home')
        await mkdir(home)
        const result = await execa(process.execPath, [script, ...args], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...env, ...extra },
          extendEnv: false,
          reject: false,
          all: true,
        })
        if (result.exitCode !== 0) throw new Error(`${path.basename(script)} ${args.join(' ')} exited ${result.exitCode}: ${result.all}`)
        return await readFile(path.join(dir, lockfile), 'utf8')
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    }
    const pnpmLock = await install(pnpm.script, ['install', '--ignore-scripts', `--registry=${registry.url}`], {}, { 'package.json': packageJson }, 'pnpm-lock.yaml')
    const yarnClassicLock = await install(
      yarnClassic.script,
      ['install', '--ignore-scripts', '--non-interactive', '--no-progress', `--registry=${registry.url}`],
      {},
      { 'package.json': packageJson },
      'yarn.lock',
    )
    const yarnBerryLock = await install(
      yarnBerry.script,
      ['install'],
      {
        YARN_NPM_REGISTRY_SERVER: registry.url.replace(/\/$/, ''),
        YARN_UNSAFE_HTTP_WHITELIST: '127.0.0.1',
        YARN_ENABLE_GLOBAL_CACHE: 'true',
        YARN_ENABLE_TELEMETRY: 'false',
        YARN_ENABLE_SCRIPTS: 'false',
        YARN_IGNORE_PATH: 'true',
      },
      { 'package.json': packageJson, 'yarn.lock': '', '.yarnrc.yml': yarnrc },
      'yarn.lock',
    )
    return { packageJson, pnpmLock, yarnClassicLock, yarnBerryLock, yarnrc, env }
  } finally {
    await registry.close()
  }
}
