/** The longest slug a task folder gets from its commit subject. */
export const MAX_SLUG_LENGTH = 40

/**
 * A task folder's slug from its commit subject: the "fix:" / "fix(scope):"
 * prefix dropped, lowercase letters and digits joined by dashes, cut at a
 * word boundary to at most 40 characters. Falls back to `fix-<commit>`.
 */
export function slugFromSubject(subject: string, fix: string): string {
  const words = subject
    .replace(/^fix(?:e[sd])?\s*(?:\([^)]*\))?\s*[:!-]?\s*/i, '')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((word) => word !== '')
  let slug = ''
  for (const word of words) {
    const next = slug === '' ? word : `${slug}-${word}`
    if (next.length > MAX_SLUG_LENGTH) break
    slug = next
  }
  if (slug === '' && words.length > 0) slug = words[0]!.slice(0, MAX_SLUG_LENGTH)
  return slug === '' ? `fix-${fix.slice(0, 7)}` : slug
}
