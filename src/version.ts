import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * The package.json of task-outcome itself: the nearest one above this file
 * named `task-outcome` (the sources sit one folder below it, the build two).
 */
function ownPackageJson(): { version: string } {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'task-outcome' && typeof pkg.version === 'string') return { version: pkg.version }
    } catch {
      // no package.json here: keep walking up
    }
    if (path.dirname(dir) === dir) throw new Error(`task-outcome: no package.json of its own above ${import.meta.dirname}`)
  }
}

/** task-outcome's own version (`versions.harness` in every record). */
export const harnessVersion: string = ownPackageJson().version
