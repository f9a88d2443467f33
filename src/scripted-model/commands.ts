/**
 * The shell commands the scripted model runs to explore a workspace. Their
 * output is sorted bytewise (`LC_ALL=C sort`), never left in the order the
 * filesystem returns directory entries: that order depends on how the
 * workspace was made (a copy, an overlay, another machine), and the model is
 * shown the output, so an unsorted listing would change the session's tokens
 * and cost between two runs of the same (task, arm, seed) — a sharded and an
 * unsharded run of one experiment would then not give the same report.
 */

/** A word for the shell, single-quoted. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}

/** Lists the files under a folder (not .git; not node_modules unless asked), sorted, at most 200. */
export function listFilesCommand(dir: string, options: { readonly includeNodeModules?: boolean } = {}): string {
  const excluded = options.includeNodeModules === true ? '' : ` -not -path '*/node_modules/*'`
  return `find ${shellQuote(dir)} -type f -not -path '*/.git/*'${excluded} | LC_ALL=C sort | head -200`
}

/** Searches the workspace for a fixed pattern (grep -rn, not .git; not node_modules unless asked), matches sorted, at most 50. */
export function searchCommand(pattern: string, options: { readonly includeNodeModules?: boolean } = {}): string {
  const excluded = options.includeNodeModules === true ? '' : ' --exclude-dir=node_modules'
  return `grep -rn --exclude-dir=.git${excluded} -- ${shellQuote(pattern)} . | LC_ALL=C sort | head -50`
}
