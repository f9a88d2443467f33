import path from 'node:path'

/**
 * Turns a whole-file change into the smallest search-and-replace an editing
 * tool accepts (Claude Code's `Edit`, Gemini's `replace`): `oldString` must
 * occur exactly once in the file and must not be empty.
 */

/** A search-and-replace on one file. */
export interface Replacement {
  readonly oldString: string
  readonly newString: string
}

function occursOnce(haystack: string, needle: string): boolean {
  const first = haystack.indexOf(needle)
  return first !== -1 && haystack.indexOf(needle, first + 1) === -1
}

/**
 * The smallest line-aligned replacement that turns `before` into `after`:
 * common leading and trailing lines are left out, then context lines are added
 * back until `oldString` is non-empty and unique in `before`. Null when the
 * contents are equal.
 */
export function minimalReplacement(before: string, after: string): Replacement | null {
  if (before === after) return null
  const a = before.split('\n')
  const b = after.split('\n')
  let prefix = 0
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++
  let suffix = 0
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++
  let start = prefix
  let endA = a.length - suffix
  let endB = b.length - suffix
  for (;;) {
    const oldString = a.slice(start, endA).join('\n')
    if (oldString.trim() !== '' && occursOnce(before, oldString)) {
      return { oldString, newString: b.slice(start, endB).join('\n') }
    }
    if (start === 0 && endA === a.length) return { oldString: before, newString: after }
    if (start > 0) start--
    if (endA < a.length) {
      endA++
      endB++
    }
  }
}

const LINE_COMMENT: Record<string, string> = {
  '.js': '//',
  '.mjs': '//',
  '.cjs': '//',
  '.ts': '//',
  '.tsx': '//',
  '.jsx': '//',
  '.java': '//',
  '.c': '//',
  '.h': '//',
  '.cc': '//',
  '.cpp': '//',
  '.go': '//',
  '.rs': '//',
  '.kt': '//',
  '.swift': '//',
  '.cs': '//',
  '.scala': '//',
  '.php': '//',
  '.py': '#',
  '.rb': '#',
  '.sh': '#',
  '.bash': '#',
  '.pl': '#',
  '.r': '#',
  '.yml': '#',
  '.yaml': '#',
  '.toml': '#',
}

/**
 * A plausible wrong fix: the lines the real fix would change stay as they
 * are, with a comment claiming the case is handled. The file changes, the
 * bug stays. Null when the file's language has no line comment we know.
 */
export function wrongReplacement(filePath: string, before: string, after: string): Replacement | null {
  const comment = LINE_COMMENT[path.extname(filePath).toLowerCase()]
  const right = minimalReplacement(before, after)
  if (comment === undefined || right === null) return null
  const firstLine = right.oldString.split('\n')[0] ?? ''
  const indent = /^\s*/.exec(firstLine)?.[0] ?? ''
  return { oldString: right.oldString, newString: `${indent}${comment} edge case handled below\n${right.oldString}` }
}
