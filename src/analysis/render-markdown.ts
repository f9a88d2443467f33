import type { Block, Cell } from './document.ts'

function cell(value: Cell): string {
  const text = typeof value === 'string' ? value : `[${value.text}](${value.href})`
  return text.replace(/\|/g, '\\|')
}

/** A Markdown table with columns padded to equal width, so it also reads in a terminal. */
function table(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const all = [header, ...rows].map((row) => row.map(cell))
  const widths = header.map((_, column) => Math.max(3, ...all.map((row) => (row[column] ?? '').length)))
  const line = (row: readonly string[]) => `| ${row.map((text, column) => text.padEnd(widths[column]!)).join(' | ')} |`
  return [line(all[0]!), `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`, ...all.slice(1).map(line)].join('\n')
}

/** Renders report blocks as Markdown (report.md, and `analyze` without --json). */
export function renderMarkdown(blocks: readonly Block[]): string {
  const parts = blocks.map((block) => {
    switch (block.kind) {
      case 'heading':
        return `${'#'.repeat(block.level)} ${block.text}`
      case 'label':
        return `> **${block.tag}.** ${block.text}`
      case 'verdict':
        return `**Verdict: ${block.verdict}.** ${block.text}`
      case 'paragraph':
        return block.text
      case 'list':
        return block.items.map((item) => `- ${item}`).join('\n')
      case 'table':
        return table(block.header, block.rows)
      case 'figure':
        return `Figure: ${block.title}. ${block.caption}`
    }
  })
  return `${parts.join('\n\n')}\n`
}
