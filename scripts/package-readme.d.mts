/** Where `swap` keeps the repository's README while the package's is in its place. */
export const BACKUP: string
/** The package's README made from the repository's `readme`: clone-only parts left out, package-only parts put in. */
export function packageReadme(readme: string): string
/** Puts the repository's README back in `root` if a swap left it aside; true when it did. */
export function restore(root: string): boolean
/** Writes the package's README over `root`'s README.md, the repository's kept at BACKUP. */
export function swap(root: string): void
