/**
 * Splitting CSV text into lines and lines into fields.
 */

/** Splits CSV text into its lines, without the blank lines at its end. */
export function splitLines(text) {
  const lines = text.split('\n')
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop()
  return lines
}

/**
 * Splits one CSV line into its fields, trimmed. A field may be wrapped in
 * double quotes, and then holds commas and doubled quotes ("") as text.
 */
export function splitRow(line) {
  const fields = []
  let field = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const char = line[i]
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"'
        i++
      } else if (char === '"') quoted = false
      else field += char
    } else if (char === '"') quoted = true
    else if (char === ',') {
      fields.push(field.trim())
      field = ''
    } else field += char
  }
  fields.push(field.trim())
  return fields
}
