import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * The package.json of task-outcome itself: the nearest one above this file
 * named `task-outcome` (the sources sit one folder below it, the build two).
 */
function ownPackageJson(): { version: string; root: string } {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'task-outcome' && typeof pkg.version === 'string') return { version: pkg.version, root: dir }
    } catch {
      // no package.json here: keep walking up
    }
    if (path.dirname(dir) === dir) throw new Error(`task-outcome: no package.json of its own above ${import.meta.dirname}`)
  }
}

const own = ownPackageJson()

/** task-outcome's own version (`versions.harness` in every record). */
export const harnessVersion: string = own.version

/**
 * The folder of task-outcome's own package.json (the repository, or the installed package): where the files
 * it ships beside the code (the example tasks `init` copies) are found, from the sources and the build alike.
 */
export const packageRoot: string = own.root

/** The Node versions task-outcome runs on: package.json's `engines.node` (a test keeps the two equal). */
export const SUPPORTED_NODE = '^22.13.0 || >=24.0.0'

/**
 * The one line that refuses a Node outside `SUPPORTED_NODE`, or null when
 * `version` is supported. The CLI and `experimentProject` check it before
 * anything else: on an older Node the harness would otherwise start and fail
 * part-way (Vitest 5's reporter calls `Map.groupBy`, missing before Node 21).
 */
export function unsupportedNodeMessage(version: string = process.versions.node): string | null {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number)
  if ((major === 22 && minor >= 13) || major >= 24) return null
  return `task-outcome: Node ${version.replace(/^v/, '')} is not supported (it needs Node ${SUPPORTED_NODE}); run it with Node 22.13 or later, or 24.`
}
