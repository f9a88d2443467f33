import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import picomatch from 'picomatch/posix.js'
import { copyEntry, readFileInside, removeInside } from '../workspace/inside.ts'

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
 * Nothing the agent left is followed: a protected path below a link or a file
 * the agent put where a folder was gets that folder back (the link itself
 * removed, never its target), and files are written without following links.
 */
export async function restoreProtected(copy: string, startingDir: string, protect: readonly string[]): Promise<string[]> {
  if (protect.length === 0) return []
  const matches = picomatch([...protect], { dot: true })
  const original = new Set((await filesBelow(startingDir)).filter(matches))
  const touched: string[] = []
  for (const file of (await filesBelow(copy)).filter(matches)) {
    if (original.has(file)) continue
    await removeInside(copy, file)
    touched.push(file)
  }
  for (const file of original) {
    const left = await readFileInside(copy, file)
    const differs = left === null || !left.equals(await readFile(path.join(startingDir, file)))
    await copyEntry(startingDir, copy, file, true)
    if (differs) touched.push(file)
  }
  return touched.sort()
}
