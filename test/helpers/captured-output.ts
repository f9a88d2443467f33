import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * Readers of the captured agent output a parser test keeps in its `fixtures/`
 * folder (copied verbatim from what the real CLI printed): a whole file, or
 * its lines as the stream parsers take them.
 */
export function capturedOutput(testDir: string): { fixture(name: string): string; lines(name: string): string[] } {
  const fixture = (name: string) => readFileSync(path.join(testDir, 'fixtures', name), 'utf8')
  return { fixture, lines: (name) => fixture(name).split('\n') }
}
