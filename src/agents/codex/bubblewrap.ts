import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const LINUX_TARGETS: Readonly<Record<string, { readonly triple: string; readonly pkg: string }>> = {
  x64: { triple: 'x86_64-unknown-linux-musl', pkg: '@openai/codex-linux-x64' },
  arm64: { triple: 'aarch64-unknown-linux-musl', pkg: '@openai/codex-linux-arm64' },
}

/**
 * The folder holding the bubblewrap that the pinned Codex package ships
 * (`vendor/<triple>/codex-resources/bwrap`, "bubblewrap built for Codex"), or
 * null off Linux or when the package has none.
 *
 * Why it matters: Codex's Linux sandbox prefers a `bwrap` found on PATH. An
 * older system one (Debian 12's 0.8.0 has no `--argv0`) makes Codex exec its
 * helper by the name `codex-linux-sandbox`, which resolves only through alias
 * links Codex refuses to create when CODEX_HOME is under the temp dir, and
 * which sit where its own sandbox cannot see them when CODEX_HOME is on
 * /dev/shm. Every command and patch then fails with
 * `bwrap: execvp codex-linux-sandbox: No such file or directory`. Putting this
 * folder first on Codex's PATH makes it use the bubblewrap it was built with.
 *
 * @param codexScript the pinned `@openai/codex/bin/codex.js`, from which the platform package resolves
 */
export function codexBubblewrapDir(codexScript: string, platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | null {
  const target = platform === 'linux' ? LINUX_TARGETS[arch] : undefined
  if (target === undefined) return null
  let packageJson: string
  try {
    packageJson = createRequire(codexScript).resolve(`${target.pkg}/package.json`)
  } catch {
    return null
  }
  const dir = path.join(path.dirname(packageJson), 'vendor', target.triple, 'codex-resources')
  return existsSync(path.join(dir, 'bwrap')) ? dir : null
}
