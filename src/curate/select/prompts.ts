import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { ProblemsError, type Problem } from '../../errors.ts'
import { splitFrontMatter, type PromptAllowance } from './front-matter.ts'

/**
 * Prompts: one Markdown file per candidate, named by the fix commit
 * (`<commit prefix>.md` or `<commit prefix>-<anything>.md`, the prefix at
 * least 7 hex digits), written from the commit before any agent runs. A
 * prompt states a symptom; `select` refuses one that names a gold file,
 * unless its front matter allows that module name with a reason
 * (`front-matter.ts`).
 */

/** One prompt matched to its candidate. */
export interface Prompt {
  readonly fix: string
  readonly file: string
  /** What the agent reads (the file without its front matter). */
  readonly text: string
  /** The module names the prompt may use, each with its reason (from the front matter). */
  readonly allow: readonly PromptAllowance[]
  /** Lines of front matter above `text` (a line of `text` is this many lines further down the file). */
  readonly bodyLineOffset: number
}

const PROMPT_NAME = /^([0-9a-f]{7,40})(?:-[^/]*)?\.md$/

/**
 * Reads every prompt in `dir` and matches it to one candidate. A Markdown file
 * whose name is not a commit prefix, a prefix that matches no candidate or
 * several, two prompts for one candidate, and an empty prompt are problems,
 * reported together.
 */
export async function readPrompts(dir: string, candidateFixes: readonly string[]): Promise<Map<string, Prompt>> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.md')).sort()
  const prompts = new Map<string, Prompt>()
  const problems: Problem[] = []
  for (const name of names) {
    const file = path.join(dir, name)
    const match = PROMPT_NAME.exec(name)
    if (match === null) {
      problems.push({ file, message: 'a prompt is named by its fix commit: "<7+ hex digits of the commit>[-words].md"' })
      continue
    }
    const fixes = candidateFixes.filter((fix) => fix.startsWith(match[1]!))
    if (fixes.length !== 1) {
      problems.push({ file, message: fixes.length === 0 ? `"${match[1]}" matches no candidate` : `"${match[1]}" matches ${fixes.length} candidates: give more digits` })
      continue
    }
    const fix = fixes[0]!
    const other = prompts.get(fix)
    if (other !== undefined) {
      problems.push({ file, message: `a second prompt for ${fix} (the first is ${path.basename(other.file)})` })
      continue
    }
    const { body, allow, bodyLineOffset } = splitFrontMatter(await readFile(file, 'utf8'), file, problems)
    if (body.trim() === '') problems.push({ file, message: 'is empty: write the symptom a user would report' })
    else prompts.set(fix, { fix, file, text: body, allow, bodyLineOffset })
  }
  if (problems.length > 0) throw new ProblemsError('The prompts cannot be used:', problems)
  return prompts
}

/** How a prompt names a gold file. */
export interface GoldNameHit {
  readonly goldFile: string
  readonly kind: 'path' | 'file name' | 'module name'
  /** The name as it appears in the gold file's path. */
  readonly name: string
  /** 1-based line of the prompt. */
  readonly line: number
}

/**
 * The names by which a prompt could point at a gold file: its path, its file
 * name, and its module name (the file name without extension; for an `index`
 * or `__init__` file the folder's name; for Python also the dotted module
 * path).
 */
export function goldFileNames(goldFile: string): { kind: GoldNameHit['kind']; name: string }[] {
  const names: { kind: GoldNameHit['kind']; name: string }[] = [{ kind: 'path', name: goldFile }]
  const base = path.posix.basename(goldFile)
  if (base !== goldFile) names.push({ kind: 'file name', name: base })
  const extension = path.posix.extname(base)
  const stem = extension === '' ? base : base.slice(0, -extension.length)
  const folder = path.posix.basename(path.posix.dirname(goldFile))
  const module = (stem === 'index' || stem === '__init__') && folder !== '.' ? folder : stem
  if (module !== base && module !== '') names.push({ kind: 'module name', name: module })
  if (extension === '.py') {
    const dotted = goldFile
      .slice(0, -extension.length)
      .split('/')
      .filter((part) => part !== '__init__')
      .join('.')
    if (dotted !== module) names.push({ kind: 'module name', name: dotted })
  }
  return names
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Every place where `prompt` names one of the gold files: the name as a whole
 * word (not part of a longer identifier), in any case. "parse" is named by
 * "fails to parse", not by "parser" or "parseDate".
 */
export function findGoldNames(prompt: string, goldFiles: readonly string[]): GoldNameHit[] {
  const hits: GoldNameHit[] = []
  const lines = prompt.split('\n')
  for (const goldFile of goldFiles) {
    for (const { kind, name } of goldFileNames(goldFile)) {
      const pattern = new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(name)}(?![A-Za-z0-9_])`, 'i')
      const index = lines.findIndex((line) => pattern.test(line))
      if (index >= 0) hits.push({ goldFile, kind, name, line: index + 1 })
    }
  }
  return hits
}

/**
 * Refuses prompts that name a gold file of their candidate, saying which
 * prompt, line, file and name. A module name the prompt's front matter allows
 * is accepted (a path or file name never is); an allowance that names no gold
 * file's module is refused too, so every recorded allowance was needed.
 */
export function checkPrompts(prompts: Iterable<Prompt>, goldFilesOf: (fix: string) => readonly string[]): void {
  const problems: Problem[] = []
  for (const prompt of prompts) {
    const allowed = new Map(prompt.allow.map((allowance) => [allowance.word.toLowerCase(), allowance]))
    const used = new Set<string>()
    for (const hit of findGoldNames(prompt.text, goldFilesOf(prompt.fix))) {
      const word = hit.name.toLowerCase()
      if (hit.kind === 'module name' && allowed.has(word)) {
        used.add(word)
        continue
      }
      problems.push({
        file: prompt.file,
        field: `line ${hit.line + prompt.bodyLineOffset}`,
        message:
          `names the gold file ${hit.goldFile} by its ${hit.kind} "${hit.name}": describe the symptom a user sees instead` +
          (hit.kind === 'module name'
            ? ` (or, when the symptom cannot be said without the word, allow it with a reason in the front matter: \`allow: { ${hit.name}: <why> }\`)`
            : ''),
      })
    }
    for (const allowance of prompt.allow) {
      if (!used.has(allowance.word.toLowerCase())) {
        problems.push({
          file: prompt.file,
          field: `allow.${allowance.word}`,
          message: `allows "${allowance.word}", but the prompt names no gold file's module by it: remove the allowance`,
        })
      }
    }
  }
  if (problems.length > 0) throw new ProblemsError('Refusing prompts that name a gold file:', problems)
}
