/**
 * Reading a call's arguments out of JavaScript source without a parser, for
 * the canaries and decoys (which copy the file's own assertions, and mirror
 * how its calls look): good enough for the one-line assertions tests hold,
 * and never trusted to decide anything (a call it cannot read is skipped).
 */

/** The index just past the parenthesis that closes the one at `open`, or -1 (quotes and template strings skipped). */
export function closing(text: string, open: number): number {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    const c = text[i]!
    if (c === "'" || c === '"' || c === '`') {
      const end = text.indexOf(c, i + 1)
      if (end < 0) return -1
      i = end
    } else if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') {
      depth--
      if (depth === 0) return c === ')' ? i + 1 : -1
    }
  }
  return -1
}

/** The top-level comma-separated parts of an argument list's text. */
export function splitArgs(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "'" || c === '"' || c === '`') i = Math.max(i, text.indexOf(c, i + 1))
    else if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') depth--
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim())
      start = i + 1
    }
  }
  parts.push(text.slice(start).trim())
  return parts.filter((part) => part !== '')
}
