/** The files of `changed` that `patterns` (Stryker's `mutate` list, `!` to exclude) selects, in `changed`'s order. */
export function mutationTargets(changed: readonly string[], patterns: readonly string[]): string[]
