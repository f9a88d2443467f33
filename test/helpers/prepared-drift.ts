import { createHash } from 'node:crypto'
import { lstat, readdir, readFile, readlink } from 'node:fs/promises'
import path from 'node:path'

/**
 * Each prepared dependency folder below the template cache `root` (the stored `content-…` folders, and `deps-…` ones of
 * the first layout) whose files differ from its manifest (mode and SHA-256, links by target), as `<folder>: <file>`:
 * read here on its own, not through the harness's check.
 */
export async function preparedDrift(root: string): Promise<string[]> {
  const drift: string[] = []
  for (const key of (await readdir(root).catch(() => [] as string[])).filter((name) => /^(deps|content)-/.test(name))) {
    const text = await readFile(path.join(root, key, 'manifest.json'), 'utf8').catch(() => null)
    // A deps- entry of the content-addressed layout holds only entry.json: its folder is a content- one.
    if (text === null && key.startsWith('deps-')) continue
    const manifest = JSON.parse(text ?? '') as { mount: string; files: Record<string, string> }
    const folder = path.join(root, key, 'project', manifest.mount)
    const files: Record<string, string> = {}
    for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
      if (entry.isDirectory()) continue
      const file = path.join(entry.parentPath, entry.name)
      const info = await lstat(file)
      files[path.relative(folder, file)] = info.isSymbolicLink()
        ? `link ${await readlink(file)}`
        : `${(info.mode & 0o777).toString(8)} ${createHash('sha256')
            .update(await readFile(file))
            .digest('hex')}`
    }
    for (const file of new Set([...Object.keys(files), ...Object.keys(manifest.files)])) if (files[file] !== manifest.files[file]) drift.push(`${key}: ${file}`)
  }
  return drift
}
