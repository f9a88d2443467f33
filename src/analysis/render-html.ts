import type { Block, Cell } from './document.ts'

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

const STYLE = `
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
.label { border-left: 4px solid #b26b00; background: #fff4e0; padding: .5rem .8rem; }
.verdict { font-size: 1.1rem; padding: .6rem .8rem; border-radius: 4px; background: #f1f1f1; }
.verdict.supported { background: #e3f4e5; } .verdict.not-supported { background: #fbe7e5; } .verdict.no-verdict { background: #ececec; }
table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f6f6f6; }
figure { margin: 1.5rem 0; } figure svg { max-width: 100%; height: auto; } figcaption { color: #444; font-size: .9rem; max-width: 60rem; }
`

function cellHtml(value: Cell): string {
  return typeof value === 'string' ? escapeHtml(value) : `<a href="${escapeHtml(encodeURI(value.href))}">${escapeHtml(value.text)}</a>`
}

/**
 * Renders report blocks as one static HTML page (report.html): inline style,
 * figures as inline SVG, no script, no external asset, so it opens anywhere
 * (offline too) and can be archived as one file. Run artifacts are linked by
 * relative path (they sit beside the report, git-ignored).
 */
export function renderHtml(blocks: readonly Block[], title: string): string {
  const body = blocks.map((block) => {
    switch (block.kind) {
      case 'heading':
        return `<h${block.level}>${escapeHtml(block.text)}</h${block.level}>`
      case 'label':
        return `<p class="label"><strong>${escapeHtml(block.tag)}.</strong> ${escapeHtml(block.text)}</p>`
      case 'verdict':
        return `<p class="verdict ${block.verdict.replace(/ /g, '-')}"><strong>Verdict: ${escapeHtml(block.verdict)}.</strong> ${escapeHtml(block.text)}</p>`
      case 'paragraph':
        return `<p>${escapeHtml(block.text)}</p>`
      case 'list':
        return `<ul>\n${block.items.map((item) => `<li>${escapeHtml(item)}</li>`).join('\n')}\n</ul>`
      case 'table':
        return [
          '<table>',
          `<thead><tr>${block.header.map((text) => `<th>${escapeHtml(text)}</th>`).join('')}</tr></thead>`,
          '<tbody>',
          ...block.rows.map((row) => `<tr>${row.map((value) => `<td>${cellHtml(value)}</td>`).join('')}</tr>`),
          '</tbody>',
          '</table>',
        ].join('\n')
      case 'figure':
        return [
          `<figure id="${escapeHtml(block.id)}" data-tasks="${block.marks.tasks}" data-runs="${block.marks.runs}">`,
          `<h3>${escapeHtml(block.title)}</h3>`,
          block.svg,
          `<figcaption>${escapeHtml(block.caption)}</figcaption>`,
          '</figure>',
        ].join('\n')
    }
  })
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n')
}
