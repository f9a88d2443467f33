import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * What of the machine a sandboxed command needs to run, read-only: the
 * command's own installation. For a file inside an npm package
 * (`node_modules/<name>/…`) that is the package folder and its dependency
 * closure (optional dependencies included, resolved the way Node resolves
 * them); for any other file outside the system folders (a `command` agent's
 * script), the file alone. Nothing else of the project that holds them.
 */

function packageRoot(file: string): string | undefined {
  let dir = path.dirname(file)
  while (dir !== path.dirname(dir)) {
    const parent = path.basename(path.dirname(dir))
    // A package is a folder of node_modules, or of a scope (`node_modules/@scope/name`); a package.json deeper down
    // (`esm/package.json`, a module type) is part of its package, not one of its own.
    const installed = parent === 'node_modules' || (parent.startsWith('@') && path.basename(path.dirname(path.dirname(dir))) === 'node_modules')
    if (installed && existsSync(path.join(dir, 'package.json'))) return dir
    dir = path.dirname(dir)
  }
  return undefined
}

function resolvePackage(name: string, from: string): string | undefined {
  let dir = from
  while (true) {
    const candidate = path.join(dir, 'node_modules', name)
    if (existsSync(path.join(candidate, 'package.json'))) return candidate
    const parent = path.dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/** A package folder and every package it depends on (optional ones that are installed included). */
export function packageClosure(root: string): string[] {
  const seen = new Set<string>()
  const visit = (dir: string) => {
    const real = realpathSync(dir)
    if (seen.has(real)) return
    seen.add(real)
    let manifest: { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }
    try {
      manifest = JSON.parse(readFileSync(path.join(real, 'package.json'), 'utf8'))
    } catch {
      return
    }
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      // From the real folder, as Node resolves a linked package's dependencies (pnpm's store, `npm link`).
      const found = resolvePackage(name, real)
      if (found !== undefined) visit(found)
    }
  }
  visit(root)
  return [...seen].sort()
}

const SYSTEM = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/', '/etc/']

/** The read-only paths `file` needs: its package's closure, or the file itself; nothing for system files. */
export function installationOf(file: string): string[] {
  if (!path.isAbsolute(file) || !existsSync(file)) return []
  const real = realpathSync(file)
  if (SYSTEM.some((prefix) => real.startsWith(prefix))) return []
  if (statSync(real).isDirectory()) return [real]
  const root = packageRoot(real)
  return root === undefined ? [...new Set([file, real])] : packageClosure(root)
}

/** The installation of a command line: its executable and, for an interpreter (`node x.js`), its first argument. */
export function commandInstallation(file: string, args: readonly string[]): string[] {
  const first = args[0]
  return [...new Set([...installationOf(file), ...(first === undefined ? [] : installationOf(first))])]
}
