import { existsSync, realpathSync } from 'node:fs'
import path from 'node:path'

/**
 * The toolchain folders a sandboxed process may see read-only: the harness's
 * own Node, and the folders of a PATH (each folder itself, not its parent;
 * a pyenv `shims` folder brings its pyenv root, which the shims run). Folders
 * inside any of `exclude` (the project, the workspace root, the templates)
 * are left out, so `node_modules/.bin` never gives the agent the project.
 */
export function toolchainMounts(pathVariable: string | undefined, exclude: readonly string[]): string[] {
  const inside = (dir: string) => exclude.some((root) => dir === root || dir.startsWith(root + path.sep))
  const mounts = new Set<string>()
  const add = (dir: string) => {
    if (!existsSync(dir)) return
    const real = realpathSync(dir)
    if (inside(dir) || inside(real)) return
    mounts.add(dir)
    if (real !== dir) mounts.add(real)
  }
  add(path.dirname(process.execPath))
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue
    if (path.basename(dir) === 'shims' && path.basename(path.dirname(dir)).endsWith('pyenv')) add(path.dirname(dir))
    else if (path.basename(dir) === 'shims' && path.basename(path.dirname(path.dirname(path.dirname(dir)))).endsWith('pyenv')) add(path.dirname(path.dirname(path.dirname(dir))))
    else add(dir)
  }
  return [...mounts].sort()
}
