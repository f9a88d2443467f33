import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * A package-lock.json for a throwaway project whose only devDependency is
 * this repository's own Vitest: the entries of Vitest and its dependency
 * closure copied from this repository's lockfile, at the same tree paths. So
 * `npm ci --offline` of it needs only tarballs this repository's own `npm ci`
 * already put into npm's cache (no packument, no registry). Every entry gets
 * its `resolved` URL (npm's registry layout) beside its `integrity`: without
 * it, npm would need the package's packument to find the tarball.
 */

interface LockEntry {
  readonly version?: string
  readonly dependencies?: Record<string, string>
  readonly optionalDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>
  readonly [field: string]: unknown
}

const repositoryRoot = path.resolve(import.meta.dirname, '../..')

/** Where `name` resolves from the package at `from` (a lockfile path), walking up the node_modules chain. */
function resolveFrom(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`
    if (packages[candidate] !== undefined) return candidate
    if (base === '') return undefined
    const index = base.lastIndexOf('/node_modules/')
    base = index === -1 ? '' : base.slice(0, index)
  }
}

/** This repository's pinned Vitest version (from its lockfile). */
export function pinnedVitestVersion(): string {
  const lock = JSON.parse(readFileSync(path.join(repositoryRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
  return lock.packages['node_modules/vitest']!.version!
}

/** The throwaway project's package.json and package-lock.json texts. */
export function vitestProjectFiles(name = 'vitest-fixture'): { packageJson: string; packageLock: string } {
  const lock = JSON.parse(readFileSync(path.join(repositoryRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
  const version = lock.packages['node_modules/vitest']!.version!
  const kept: Record<string, LockEntry> = {}
  const queue = ['node_modules/vitest']
  while (queue.length > 0) {
    const at = queue.shift()!
    if (kept[at] !== undefined) continue
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = lock.packages[at]!
    const name = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const resolved = entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`
    kept[at] = { ...entry, resolved, dev: true }
    const optionalPeers = entry.peerDependenciesMeta ?? {}
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((peer) => optionalPeers[peer]?.optional !== true),
    ]
    for (const dependency of names) {
      const resolved = resolveFrom(lock.packages, at, dependency)
      if (resolved !== undefined && kept[resolved] === undefined) queue.push(resolved)
    }
  }
  const manifest = { name, version: '1.0.0', private: true, type: 'module', devDependencies: { vitest: version } }
  const sorted = Object.fromEntries(Object.entries(kept).sort(([a], [b]) => (a < b ? -1 : 1)))
  const packageLock = { name, version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name, version: '1.0.0', devDependencies: { vitest: version } }, ...sorted } }
  return { packageJson: `${JSON.stringify(manifest, null, 2)}\n`, packageLock: `${JSON.stringify(packageLock, null, 2)}\n` }
}
