/** Formats rows as an aligned text table; the first row is the header, numbers right-aligned. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)))
  const numeric = (text: string) => /^[-+$]?[\d.,]+%?$/.test(text)
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column > 0 && numeric(cell) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
