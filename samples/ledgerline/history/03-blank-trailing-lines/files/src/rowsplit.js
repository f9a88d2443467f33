/**
 * Splitting CSV text into lines and lines into fields.
 */

/** Splits CSV text into its lines, without the blank lines at its end. */
export function splitLines(text) {
  const lines = text.split('\n')
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop()
  return lines
}

/** Splits one CSV line into its fields, trimmed; a field may be wrapped in double quotes. */
export function splitRow(line) {
  return line.split(',').map((field) => unquote(field.trim()))
}

function unquote(field) {
  if (field.length >= 2 && field.startsWith('"') && field.endsWith('"')) {
    return field.slice(1, -1).replaceAll('""', '"')
  }
  return field
}
