// Which files `npm run mutate -- --changed <base>` mutates: the changed files that Stryker's `mutate` list
// (stryker.config.mjs) selects, so a change is mutation-tested where it touches the trust-critical code.

import picomatch from 'picomatch'

/**
 * The files of `changed` (paths from the repository root, `/`-separated) that `patterns` selects: matched by
 * one pattern and by no `!` pattern, as Stryker reads its `mutate` list. In `changed`'s order.
 */
export function mutationTargets(changed, patterns) {
  const included = picomatch(patterns.filter((p) => !p.startsWith('!')))
  const excluded = picomatch(patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1)))
  return changed.filter((file) => included(file) && !excluded(file))
}
