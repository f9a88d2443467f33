// Which files `npm run mutate -- --changed <base>` mutates: the changed files that Stryker's `mutate` list
// (stryker.config.mjs) selects, so a change is mutation-tested where it touches the trust-critical code.

/** A glob of the forms the mutate list uses (`**`, `*`, `{a,b}`) as an anchored regular expression. */
function globRegExp(glob) {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?'
      i += 2
    } else if (c === '*') source += '[^/]*'
    else if (c === '{') source += '(?:'
    else if (c === '}') source += ')'
    else if (c === ',') source += '|'
    else source += c.replace(/[.+?^$()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

/**
 * The files of `changed` (paths from the repository root, `/`-separated) that `patterns` selects: matched by
 * one pattern and by no `!` pattern, as Stryker reads its `mutate` list. In `changed`'s order.
 */
export function mutationTargets(changed, patterns) {
  const include = patterns.filter((p) => !p.startsWith('!')).map(globRegExp)
  const exclude = patterns.filter((p) => p.startsWith('!')).map((p) => globRegExp(p.slice(1)))
  return changed.filter((file) => include.some((re) => re.test(file)) && !exclude.some((re) => re.test(file)))
}
