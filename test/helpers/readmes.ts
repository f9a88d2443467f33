import { readFileSync } from 'node:fs'
import path from 'node:path'
import { BACKUP, packageReadme } from '../../scripts/package-readme.mjs'
import { repoRoot } from './experiment-fixture.ts'

/**
 * The repository's README.md as committed to the working tree. While an `npm pack` of this tree is between its
 * prepack and postpack (another test file packs it), README.md is the package's (no repository-only marker) and
 * the repository's is at BACKUP; either file may be renamed while it is read, so a read that misses is retried.
 */
export function repositoryReadme(): string {
  let readme = ''
  for (let attempt = 0; attempt < 20; attempt++) {
    readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8')
    if (readme.includes('<!-- repository-only -->')) return readme
    try {
      return readFileSync(path.join(repoRoot, BACKUP), 'utf8')
    } catch {
      // the swap has just been undone: README.md is the repository's again
    }
  }
  return readme
}

/** The README the package ships as its README.md (what `npm pack` puts in the tarball). */
export function shippedReadme(): string {
  return packageReadme(repositoryReadme())
}

/** The lines of the first ```sh block of `markdown`, each without its trailing comment. */
export function firstCommands(markdown: string): string[] {
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(markdown)
  if (!block) throw new Error('no ```sh block')
  return block[1]!
    .trim()
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, ''))
}
