import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'

/**
 * A package registry on 127.0.0.1 serving this repository's own Vitest and its
 * dependency closure, from what this repository's `npm ci` left in npm's cache
 * (the tarballs, found by their integrity): so a test can fill a pnpm store or
 * a yarn cache the way a user does once with network, without reaching
 * anything but 127.0.0.1. Packages of other platforms, which npm never
 * fetched, are served as empty packages of the same name and version (with
 * their `os`/`cpu`/`libc` kept and no dependencies): a package manager that
 * fetches them anyway (yarn classic ignores `libc`) gets something, and
 * nothing of them ever runs here.
 */

interface LockEntry {
  readonly version: string
  readonly integrity?: string
  readonly [field: string]: unknown
}

/** A running registry. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string
  /** How many packages it serves (name@version). */
  readonly packages: number
  close(): Promise<void>
}

const repositoryRoot = path.resolve(import.meta.dirname, '../..')
const PUBLISHED = '2025-01-01T00:00:00.000Z'
const FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'os', 'cpu', 'libc', 'engines', 'bin'] as const

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

/** The lockfile entries of `root` and everything it depends on (optional peers left out), by tree path. */
function closure(packages: Record<string, LockEntry>, root: string): string[] {
  const seen = new Set<string>()
  const queue = [root]
  while (queue.length > 0) {
    const at = queue.shift()!
    if (seen.has(at)) continue
    seen.add(at)
    const entry = packages[at]!
    const peersMeta = (entry.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>
    const names = [
      ...Object.keys((entry.dependencies ?? {}) as object),
      ...Object.keys((entry.optionalDependencies ?? {}) as object),
      ...Object.keys((entry.peerDependencies ?? {}) as object).filter((peer) => peersMeta[peer]?.optional !== true),
    ]
    for (const name of names) {
      const resolved = resolveFrom(packages, at, name)
      if (resolved !== undefined) queue.push(resolved)
    }
  }
  return [...seen]
}

/** Where npm's cache keeps the content of `integrity` (cacache's layout). */
function cachedTarball(integrity: string): string {
  const cache = path.join(process.env.npm_config_cache ?? path.join(os.homedir(), '.npm'), '_cacache')
  const [algorithm, digest] = integrity.split('-', 2) as [string, string]
  const hex = Buffer.from(digest, 'base64').toString('hex')
  return path.join(cache, `content-v2`, algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4))
}

/** An empty package's tarball (only its package.json). */
function emptyPackage(name: string, version: string): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'empty-package-'))
  try {
    mkdirSync(path.join(dir, 'package'))
    writeFileSync(path.join(dir, 'package', 'package.json'), `${JSON.stringify({ name, version })}\n`)
    execFileSync('tar', ['-czf', path.join(dir, 'package.tgz'), '--owner=0', '--group=0', '--mtime=@0', '-C', dir, 'package'])
    return readFileSync(path.join(dir, 'package.tgz'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

interface Served {
  readonly manifest: Record<string, unknown>
  readonly integrity: string
  /** The tarball's SHA-1 in hex (yarn classic names its cache entries by it). */
  readonly shasum: string
  readonly tarball: () => Buffer
}

/** Starts the registry for `root` (a package of this repository's lockfile, default Vitest) and its closure. */
export async function startLocalRegistry(root = 'vitest'): Promise<LocalRegistry> {
  const lock = JSON.parse(readFileSync(path.join(repositoryRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
  const byName = new Map<string, Map<string, Served>>()
  for (const at of closure(lock.packages, `node_modules/${root}`)) {
    const name = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const entry = lock.packages[at]!
    const file = entry.integrity === undefined ? null : cachedTarball(entry.integrity)
    const manifest: Record<string, unknown> = { name, version: entry.version }
    let served: Served
    if (file !== null && existsSync(file)) {
      for (const field of FIELDS) if (entry[field] !== undefined) manifest[field] = entry[field]
      served = { manifest, integrity: entry.integrity!, shasum: createHash('sha1').update(readFileSync(file)).digest('hex'), tarball: () => readFileSync(file) }
    } else {
      for (const field of ['os', 'cpu', 'libc'] as const) if (entry[field] !== undefined) manifest[field] = entry[field]
      const bytes = emptyPackage(name, entry.version)
      served = {
        manifest,
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
        tarball: () => bytes,
      }
    }
    if (!byName.has(name)) byName.set(name, new Map())
    byName.get(name)!.set(entry.version, served)
  }
  const server = http.createServer((request, response) => {
    const url = decodeURIComponent((request.url ?? '/').split('?')[0]!).slice(1)
    const tarball = /^(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(url)
    if (tarball !== null) {
      const served = byName.get(tarball[1]!)?.get(tarball[2]!)
      if (served === undefined) return void response.writeHead(404).end()
      return void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(served.tarball())
    }
    const versions = byName.get(url)
    if (versions === undefined) return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}')
    const host = `http://${request.headers.host}`
    const document = {
      name: url,
      'dist-tags': { latest: [...versions.keys()].at(-1) },
      // Published long ago: yarn berry quarantines versions it cannot date.
      time: Object.fromEntries(['created', 'modified', ...versions.keys()].map((key) => [key, PUBLISHED])),
      versions: Object.fromEntries(
        [...versions].map(([version, served]) => [
          version,
          { ...served.manifest, dist: { tarball: `${host}/${url}/-/${url.split('/').pop()}-${version}.tgz`, integrity: served.integrity, shasum: served.shasum } },
        ]),
      ),
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    packages: [...byName.values()].reduce((sum, versions) => sum + versions.size, 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
