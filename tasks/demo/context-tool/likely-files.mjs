#!/usr/bin/env node
// likely-files: a tiny context tool, installed as Claude Code hooks by the
// demo's `context` arm. On UserPromptSubmit it ranks the workspace's source
// files by the prompt's words found in them (rarer words weigh more) and
// names the best few as additional context, the way a real context tool
// would. It can be wrong: it only knows words, not the bug. On PostToolUse it
// has nothing to add (its firing is counted by the manipulation check).
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const STOP = new Set('about after again also because been before being both could does doing from have into just more most only other same should some such than that their them then there these they this those through under until very were what when where which while will with would your instead returns return value values string number function called expected actually always never still prints print fix fixes please make sure correct correctly wrong error errors bug'.split(' '))
const SKIP_DIRS = new Set(['.git', 'node_modules', '.claude', 'test', 'tests', '__tests__', 'fixtures', 'docs'])

function words(text) {
  const out = new Set()
  for (const token of text.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? []) {
    for (const part of [token, ...token.split(/(?<=[a-z])(?=[A-Z])|_/)]) {
      const word = part.toLowerCase()
      if (word.length >= 4 && !STOP.has(word)) out.add(word)
    }
  }
  return [...out]
}

function sourceFiles(root) {
  const files = []
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(path.join(dir, entry.name))
      } else if (entry.isFile() && /\.(m?[jt]sx?|cjs|py|go|rs|java|rb)$/.test(entry.name) && !/\.(test|spec)\./.test(entry.name)) {
        files.push(path.relative(root, path.join(dir, entry.name)).split(path.sep).join('/'))
      }
    }
  }
  walk(root)
  return files.sort()
}

/** Files ranked by the prompt's words they contain, each word weighted by its rarity across files. */
export function rankFiles(root, prompt) {
  const terms = words(prompt)
  const files = sourceFiles(root)
  const contents = new Map(files.map((file) => [file, `${file}\n${readFileSync(path.join(root, file), 'utf8')}`.toLowerCase()]))
  const weight = new Map(terms.map((term) => {
    const df = files.filter((file) => contents.get(file).includes(term)).length
    return [term, df === 0 ? 0 : Math.log(1 + files.length / df)]
  }))
  return files
    .map((file) => ({ file, score: terms.reduce((sum, term) => sum + (contents.get(file).includes(term) ? weight.get(term) : 0), 0) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.file.localeCompare(b.file))
}

function main() {
  const input = JSON.parse(readFileSync(0, 'utf8') || '{}')
  if (input.hook_event_name !== 'UserPromptSubmit') return
  const ranked = rankFiles(input.cwd ?? process.cwd(), input.prompt ?? '')
  const best = ranked[0]?.score ?? 0
  const likely = ranked.filter((entry) => entry.score >= 0.75 * best).slice(0, 2).map((entry) => entry.file)
  if (likely.length === 0) return
  const additionalContext = `likely-files: the files most likely relevant to this request are ${likely.join(', ')}.`
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext } }))
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main()
