/**
 * The words a scripted session searches the workspace for: shared by the
 * policy (content searches) and the skills (which skill a prompt leads to).
 */

const STOP_WORDS = new Set(
  'about above after again against because been before being below between both could does doing down during each from further have having into itself just more most once only other ought same should some such than that their them then there these they this those through under until very were what when where which while whom will with would your yours should instead returns return value values string strings number numbers function when called expected actual always never still'.split(
    ' ',
  ),
)

/** Words of the prompt worth searching for: identifiers first, then long words. */
export function searchKeywords(prompt: string): string[] {
  const words = prompt.match(/[A-Za-z_][A-Za-z0-9_]{3,}/g) ?? []
  const unique = [...new Set(words)].filter((word) => !STOP_WORDS.has(word.toLowerCase()))
  const score = (word: string) => (/[a-z][A-Z]|_/.test(word) ? 100 : 0) + word.length
  return unique.sort((x, y) => score(y) - score(x) || x.localeCompare(y))
}
