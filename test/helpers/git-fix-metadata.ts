/**
 * The fields every git-fix task's metadata.json needs, with placeholder commits and one Vitest test: a test that is
 * about something else (dependencies, the cache) spreads it and names only what it is about.
 */
export function minimalGitFixMetadata(id = '001', slug = 'x', repo = '../../repo') {
  return {
    id,
    slug,
    kind: 'git-fix',
    repo,
    base: 'a'.repeat(40),
    fix: 'b'.repeat(40),
    gold_files: ['src/a.js'],
    test_files: ['test/a.test.js'],
    FAIL_TO_PASS: ['a'],
    PASS_TO_PASS: [] as string[],
    test_command: 'node_modules/.bin/vitest run --reporter=junit --outputFile={junit} {tests}',
  }
}
