import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { DependencyRecipe } from './dependencies.ts'

/**
 * The dependency recipe a commit's own files ask for (`harvest --prepare
 * auto`): the lockfile it holds decides the package manager, as it does for
 * the people who work on it. Each recipe installs exactly what the lockfile
 * names, without network and without install scripts, from the cache the
 * user filled once (npm's cache, the pnpm store, yarn's cache), with the
 * package manager task-outcome pins (`package-managers.ts`), never one the
 * repository brings.
 */

/** One lockfile the detection knows, in the order it looks for them. */
export interface LockfileKind {
  /** The file, at the repository root. */
  readonly file: string
  /** The package manager that reads it. */
  readonly manager: 'npm' | 'pnpm' | 'yarn classic' | 'yarn berry'
}

/** The lockfiles looked for, first match wins (npm's shrinkwrap before its lockfile, as npm itself does). */
export const LOCKFILES = ['npm-shrinkwrap.json', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock'] as const

/** The prepare commands, by package manager. */
export const PREPARE_COMMANDS = {
  npm: 'npm ci --offline --ignore-scripts',
  pnpm: 'pnpm install --offline --frozen-lockfile --ignore-scripts',
  'yarn classic': 'yarn install --offline --frozen-lockfile --ignore-scripts --non-interactive',
  'yarn berry': 'yarn install --immutable --mode=skip-build',
} as const

/** What the detection found at one commit. */
export type DetectedRecipe =
  | { readonly kind: 'recipe'; readonly recipe: DependencyRecipe; readonly lockfile: LockfileKind }
  /** Nothing to prepare: no package.json, or one without dependencies. */
  | { readonly kind: 'none' }
  /** Dependencies the harness cannot prepare, with the reason (a drop reason). */
  | { readonly kind: 'problem'; readonly reason: string }

const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8').catch(() => null)

/** Whether a package.json names any dependency (a project with none needs no dependency folder). */
function hasDependencies(manifest: string): boolean {
  try {
    const parsed = JSON.parse(manifest) as Record<string, unknown>
    return ['dependencies', 'devDependencies', 'optionalDependencies'].some((field) => {
      const value = parsed[field]
      return typeof value === 'object' && value !== null && Object.keys(value).length > 0
    })
  } catch {
    return true
  }
}

/** yarn berry's lockfile begins its entries with `__metadata:`; yarn classic's never has it. */
function isBerryLockfile(text: string): boolean {
  return /^__metadata:/m.test(text)
}

/** The `nodeLinker` a `.yarnrc.yml` sets (berry's default is `pnp`). */
function nodeLinker(yarnrc: string | null): string {
  const match = yarnrc === null ? null : /^nodeLinker:\s*["']?([\w-]+)["']?\s*(#.*)?$/m.exec(yarnrc)
  return match?.[1] ?? 'pnp'
}

/**
 * The recipe for the files in `dir` (a commit's tree): its lockfile's
 * package manager, reading package.json, the lockfile and (yarn berry)
 * `.yarnrc.yml`, making `node_modules`.
 */
export async function detectRecipe(dir: string): Promise<DetectedRecipe> {
  const manifest = await read(dir, 'package.json')
  const found: string[] = []
  for (const file of LOCKFILES) if ((await read(dir, file)) !== null) found.push(file)
  if (manifest === null) {
    if (found.length === 0) return { kind: 'none' }
    return { kind: 'problem', reason: `the commit has ${found[0]} but no package.json beside it at the repository root` }
  }
  const lockfile = found[0]
  if (lockfile === undefined) {
    if (!hasDependencies(manifest)) return { kind: 'none' }
    const bun = (await read(dir, 'bun.lock')) !== null ? 'bun.lock' : (await read(dir, 'bun.lockb')) !== null ? 'bun.lockb' : null
    if (bun !== null) {
      return {
        kind: 'problem',
        reason:
          `the commit's lockfile is bun's ${bun}, which --prepare auto does not install (bun is a native binary task-outcome does not pin, ` +
          `and its cache is not mounted where prepare commands run; looked for ${LOCKFILES.join(', ')}): commit one of those, or pass --prepare with your own command`,
      }
    }
    return {
      kind: 'problem',
      reason: `package.json names dependencies but the commit has no lockfile (looked for ${LOCKFILES.join(', ')} at the repository root): commit one, or pass --prepare with your own command`,
    }
  }
  const inputs = ['package.json', lockfile]
  if (lockfile === 'pnpm-lock.yaml')
    return { kind: 'recipe', recipe: { prepare: PREPARE_COMMANDS.pnpm, inputs, mount: 'node_modules' }, lockfile: { file: lockfile, manager: 'pnpm' } }
  if (lockfile === 'yarn.lock') {
    const text = (await read(dir, lockfile))!
    if (!isBerryLockfile(text)) {
      return { kind: 'recipe', recipe: { prepare: PREPARE_COMMANDS['yarn classic'], inputs, mount: 'node_modules' }, lockfile: { file: lockfile, manager: 'yarn classic' } }
    }
    const yarnrc = await read(dir, '.yarnrc.yml')
    const linker = nodeLinker(yarnrc)
    if (linker !== 'node-modules') {
      return {
        kind: 'problem',
        reason: `yarn.lock is yarn berry's and .yarnrc.yml sets nodeLinker ${linker}${yarnrc === null ? " (none: berry's default)" : ''}: the harness prepares a node_modules folder, so set "nodeLinker: node-modules" in .yarnrc.yml`,
      }
    }
    return {
      kind: 'recipe',
      recipe: { prepare: PREPARE_COMMANDS['yarn berry'], inputs: [...inputs, '.yarnrc.yml'], mount: 'node_modules' },
      lockfile: { file: lockfile, manager: 'yarn berry' },
    }
  }
  return { kind: 'recipe', recipe: { prepare: PREPARE_COMMANDS.npm, inputs, mount: 'node_modules' }, lockfile: { file: lockfile, manager: 'npm' } }
}
