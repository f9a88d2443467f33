import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from 'vitest'

// The README and docs/ are read in a fresh clone: every link must name a file inside the repository (no
// web address), and no text may send the reader to a folder beside it (`../shared/…`).

const root = path.resolve(import.meta.dirname, '..')
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

test.each(documents)('%s links only to files inside the repository', (document) => {
  const text = readFileSync(path.join(root, document), 'utf8')
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!)
  // Nothing outside the repository either: what a reader needs is in it.
  expect(links.filter((target) => /^[a-z][a-z+.-]*:/i.test(target))).toEqual([])
  const targets = links.filter((target) => !target.startsWith('#'))
  const broken = targets.filter((target) => {
    const file = path.resolve(root, path.dirname(document), target.split('#')[0]!)
    return !file.startsWith(root + path.sep) || !existsSync(file)
  })
  expect(broken).toEqual([])
  expect(text).not.toMatch(/\.\.\/shared\b/)
})
