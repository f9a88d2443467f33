import { randomInt } from 'node:crypto'
import { pick } from './family.ts'

/**
 * Names for canary tests that read like the task's own: words of the real
 * tests' names in a fresh order, so a forger cannot tell a canary from a
 * real test by how it is called.
 */

/** Words that stand in when the real names have too few words of their own (and, now and then, second in a name). */
export const FILLER: readonly string[] = [
  'when',
  'with',
  'for',
  'keeps',
  'handles',
  'returns',
  'reads',
  'accepts',
  'leaves',
  'treats',
  'the',
  'an',
  'empty',
  'single',
  'many',
  'large',
  'small',
  'first',
  'last',
  'repeated',
]

/** Words of the real test names (letters only, three or more), or a filler when they have none. */
function wordsOf(names: readonly string[]): string[] {
  const words = new Set<string>()
  for (const name of names) for (const word of name.toLowerCase().split(/[^a-z]+/)) if (word.length >= 3 && word !== 'test') words.add(word)
  return words.size >= 3 ? [...words] : [...words, ...FILLER]
}

/**
 * `count` distinct names drawn from the real names' words, none equal to a
 * name in `taken` (whose entries are added as they are drawn). `style`
 * `words` joins with spaces (JavaScript titles), `identifier` with
 * underscores behind `test_` (pytest functions).
 */
export function canaryNames(realNames: readonly string[], count: number, style: 'words' | 'identifier', taken: Set<string>): string[] {
  const pool = wordsOf(realNames)
  const names: string[] = []
  while (names.length < count) {
    const length = randomInt(3, 6)
    const words = Array.from({ length }, (_, i) => (i === 1 && randomInt(3) === 0 ? pick(FILLER) : pick(pool)))
    const name = style === 'words' ? words.join(' ') : `test_${words.join('_')}`
    if (taken.has(name)) continue
    taken.add(name)
    names.push(name)
  }
  return names
}
