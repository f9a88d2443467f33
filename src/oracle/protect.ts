import { cp, mkdir, readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import picomatch from 'picomatch/posix.js'

/** Every file and symbolic link below `dir`, as `/`-separated paths relative to it (`.git/` left out). */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => file !== '.git' && !file.startsWith('.git/'))
    .sort()
}

/**
 * Restores a folder task's protected paths on the oracle's copy: every file
 * of `starting/` matching `protect` is copied back over whatever the agent
 * left, and every file matching it that `starting/` does not have is removed.
 * Returns the paths that differed from `starting/` (restored or removed).
 */
export async function restoreProtected(copy: string, startingDir: string, protect: readonly string[]): Promise<string[]> {
  if (protect.length === 0) return []
  const matches = picomatch([...protect], { dot: true })
  const original = new Set((await filesBelow(startingDir)).filter(matches))
  const touched: string[] = []
  for (const file of (await filesBelow(copy)).filter(matches)) {
    if (original.has(file)) continue
    await rm(path.join(copy, file), { force: true })
    touched.push(file)
  }
  for (const file of original) {
    const target = path.join(copy, file)
    await rm(target, { recursive: true, force: true })
    await mkdir(path.dirname(target), { recursive: true })
    await cp(path.join(startingDir, file), target, { verbatimSymlinks: true, preserveTimestamps: true })
    touched.push(file)
  }
  return touched.sort()
}
