import path from 'node:path'

/**
 * Test identifiers are compared across two runs in two different folders
 * (before and after the fix, or the harvest and the oracle), so everything
 * that varies between runs without changing which test it is must go:
 * surrounding and repeated whitespace, the absolute path of the folder the run
 * happened in, and memory addresses that a parametrised test's name may
 * carry (`<object at 0x7f3a…>`).
 */

/** Separator between a file (or pytest class) and the test name in an id: pytest's own node-id separator. */
export const ID_SEPARATOR = '::'

/** Separator between nested suite names and the test name (the one Vitest uses in its JUnit names). */
export const NESTING_SEPARATOR = ' > '

const MEMORY_ADDRESS = /\b0x[0-9a-f]{6,16}\b/gi

/** Escapes a string for use inside a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Normalises one part of a test id: whitespace runs become one space and the
 * ends are trimmed; the run's folder (as a path or a `file://` URL) is made
 * relative; memory addresses become `0x?`.
 */
export function normalizeIdPart(text: string, cwd?: string): string {
  let out = text.replace(/\s+/g, ' ').trim()
  if (cwd !== undefined && cwd !== '') {
    const root = path.resolve(cwd)
    const prefix = new RegExp(`(?:file://)?${escapeRegExp(root)}(?:/|(?=$|[\\s:'"\\])]))`, 'g')
    out = out.replace(prefix, '')
  }
  return out.replace(MEMORY_ADDRESS, '0x?')
}

/** Joins normalised parts with `::`, leaving out empty ones. */
export function joinId(...parts: readonly string[]): string {
  return parts.filter((part) => part !== '').join(ID_SEPARATOR)
}

/**
 * pytest writes a test's class name as its node id's path with `/` turned
 * into `.` and `.py` dropped (`tests/test_calc.py::TestAdd::test_add` becomes
 * classname `tests.test_calc.TestAdd`, name `test_add`). Given the test files
 * of the run, this turns it back into the node id; without a matching file it
 * falls back to `classname::name`.
 */
export function pytestNodeId(classname: string, name: string, testFiles: readonly string[]): string {
  // A collection error is reported with an empty classname and the mangled module as the name.
  const [owner, leaf] = classname === '' ? [name, ''] : [classname, name]
  let best: { file: string; module: string } | undefined
  for (const file of testFiles) {
    if (!file.endsWith('.py')) continue
    const module = file.slice(0, -'.py'.length).split('/').join('.')
    if ((owner === module || owner.startsWith(`${module}.`)) && (best === undefined || module.length > best.module.length)) {
      best = { file, module }
    }
  }
  if (best === undefined) return joinId(classname, name)
  const classes = owner === best.module ? [] : owner.slice(best.module.length + 1).split('.')
  return joinId(best.file, ...classes, leaf)
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/**
 * Decodes XML's five named entities once more. Node 20's JUnit reporter
 * escapes test names twice (`"` becomes `&amp;quot;`), so after the parser's
 * own decoding a name still reads `&quot;`; decoding again gives the same id
 * whether or not a Node version has the double escaping.
 */
export function decodeXmlEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!)
}
