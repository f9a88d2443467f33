#!/usr/bin/env node
// The package's README is the repository's README.md without its clone-only parts: the repository's copy opens
// with a clone's commands (the demo, `npm test`), the package's with a user's (install, `init`, the example).
// One source, marked in README.md: `<!-- repository-only -->…<!-- /repository-only -->` is left out of the
// package, `<!-- package-only` … `-->` (hidden on GitHub) is put into it.
//
// npm always packs the root README.md, so `npm pack` swaps it: `prepack` (after the build) moves the repository's
// README to BACKUP and writes the package's in its place, `postpack` moves it back. A pack that failed in between
// leaves BACKUP beside the package's README.md (git status shows both); the next `swap` or `restore` puts the
// repository's back first. The package's readme on the registry is read from the folder after `postpack`, so a
// directory publish would send the repository's: `prepublishOnly` (run for directory publishes only) refuses it,
// and the tarball `npm pack` wrote is what gets published (`npm publish task-outcome-<version>.tgz`).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

/** Where `swap` keeps the repository's README while the package's is in its place (a dot file: never packed). */
export const BACKUP = '.README.repository.md'

const REPOSITORY_ONLY = /<!-- repository-only -->[\s\S]*?<!-- \/repository-only -->\n?/g
const PACKAGE_ONLY = /<!-- package-only\n([\s\S]*?)-->\n?/g

/** The package's README made from the repository's `readme`; throws when a marker is left unpaired. */
export function packageReadme(readme) {
  const opened = readme.split('<!-- repository-only -->').length - 1
  const closed = readme.split('<!-- /repository-only -->').length - 1
  if (opened !== closed) throw new Error(`README.md: ${opened} "<!-- repository-only -->" but ${closed} "<!-- /repository-only -->": pair every marker`)
  const packaged = readme.replace(REPOSITORY_ONLY, '').replace(PACKAGE_ONLY, '$1')
  if (packaged.includes('<!-- package-only') || packaged.includes('repository-only -->')) {
    throw new Error('README.md: a "<!-- package-only" block must end with "-->" on a line of its own, and repository-only markers must pair')
  }
  return packaged
}

/** Puts the repository's README back in `root` if a swap left it aside; true when it did. */
export function restore(root) {
  const backup = path.join(root, BACKUP)
  if (!existsSync(backup)) return false
  const readme = path.join(root, 'README.md')
  const current = readFileSync(readme, 'utf8')
  const repository = readFileSync(backup, 'utf8')
  if (current !== packageReadme(repository)) {
    throw new Error(`${BACKUP} and README.md both hold edits (README.md is not the package's README made from ${BACKUP}): keep the one you want as README.md and delete ${BACKUP}`)
  }
  renameSync(backup, readme)
  return true
}

/** Writes the package's README over `root`'s README.md, the repository's kept at BACKUP. */
export function swap(root) {
  restore(root)
  const readme = path.join(root, 'README.md')
  const repository = readFileSync(readme, 'utf8')
  const packaged = packageReadme(repository)
  writeFileSync(path.join(root, BACKUP), repository, { flush: true })
  writeFileSync(readme, packaged, { flush: true })
}

const REFUSAL = 'task-outcome: publish the packed tarball, not the folder (the registry would get the repository README): npm pack && npm publish task-outcome-<version>.tgz'

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = path.resolve(process.argv[3] ?? path.join(import.meta.dirname, '..'))
  const command = process.argv[2]
  try {
    if (command === 'swap') swap(root)
    else if (command === 'restore') restore(root)
    else if (command === 'refuse-directory-publish') {
      console.error(REFUSAL)
      process.exitCode = 1
    } else {
      console.error('usage: node scripts/package-readme.mjs swap | restore | refuse-directory-publish [root]')
      process.exitCode = 2
    }
  } catch (error) {
    console.error(`task-outcome: ${error.message}`)
    process.exitCode = 1
  }
}
