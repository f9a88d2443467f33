import { describe, expect, it } from 'vitest'
import { SpecError } from '../../../src/errors.ts'
import { applyRule, buildRule, fileRoles, ruleMatchers, type ScannedCommit } from '../../../src/curate/harvest/rule.ts'

const rule = buildRule({ since: '2026-07-01', source: ['pkg/**/*.py'], tests: ['tests/**/test_*.py'] })
const matchers = ruleMatchers(rule)
const commit = (changes: [string, string][], extra: Partial<ScannedCommit> = {}): ScannedCommit => ({
  id: 'f'.repeat(40),
  parents: ['e'.repeat(40)],
  date: '2026-07-02T10:00:00+02:00',
  subject: 'fix: x',
  changes: changes.map(([status, path]) => ({ status, path })),
  ...extra,
})

describe('the selection rule', () => {
  it('has the pre-registration\'s defaults: subjects starting with "fix" in any case, at most 3 source files', () => {
    const defaults = buildRule()
    expect(defaults.subject.test('Fix: crash')).toBe(true)
    expect(defaults.subject.test('fix(cli): crash')).toBe(true)
    expect(defaults.subject.test('feat: fix later')).toBe(false)
    expect(defaults.maxSourceFiles).toBe(3)
    expect(defaults.since).toBeNull()
  })

  it('accepts a fix of 1 to 3 source files with a changed test', () => {
    const verdict = applyRule(
      commit([
        ['M', 'pkg/a.py'],
        ['M', 'pkg/b.py'],
        ['A', 'tests/test_a.py'],
        ['M', 'README.md'],
      ]),
      rule,
      matchers,
    )
    expect(verdict).toEqual({
      eligible: true,
      roles: { testFiles: ['tests/test_a.py'], deletedTests: [], sourceFiles: ['pkg/a.py', 'pkg/b.py'], goldPaths: ['README.md', 'pkg/a.py', 'pkg/b.py'] },
    })
  })

  it("puts a changed conftest and test helpers on the oracle's side, never in the gold patch", () => {
    const roles = fileRoles(
      [
        { status: 'M', path: 'tests/conftest.py' },
        { status: 'M', path: 'tests/helpers/data.json' },
        { status: 'M', path: 'pkg/a.py' },
        { status: 'D', path: 'tests/test_old.py' },
      ],
      matchers,
    )
    expect(roles).toEqual({ testFiles: ['tests/conftest.py', 'tests/helpers/data.json'], deletedTests: ['tests/test_old.py'], sourceFiles: ['pkg/a.py'], goldPaths: ['pkg/a.py'] })
  })

  it('turns away, with the reason, a commit before --since, a root or merge commit, too few or too many source files, no test', () => {
    const reason = (c: ScannedCommit) => {
      const verdict = applyRule(c, rule, matchers)
      return verdict.eligible ? 'eligible' : verdict.reason
    }
    // 2026-07-01T01:00+02:00 is 2026-06-30T23:00Z: before a --since of 2026-07-01 (00:00 UTC).
    expect(
      reason(
        commit(
          [
            ['M', 'pkg/a.py'],
            ['M', 'tests/test_a.py'],
          ],
          { date: '2026-07-01T01:00:00+02:00' },
        ),
      ),
    ).toMatch(/^committed .* before 2026-07-01T00:00:00.000Z \(--since\)/)
    expect(
      reason(
        commit(
          [
            ['M', 'pkg/a.py'],
            ['M', 'tests/test_a.py'],
          ],
          { parents: [] },
        ),
      ),
    ).toBe('the root commit has no parent to start from')
    expect(reason(commit([], { parents: ['a'.repeat(40), 'b'.repeat(40)] }))).toBe('a merge commit has no single parent to start from')
    expect(
      reason(
        commit([
          ['M', 'docs/a.md'],
          ['M', 'tests/test_a.py'],
        ]),
      ),
    ).toMatch(/^changes no source file/)
    expect(
      reason(
        commit([
          ['M', 'pkg/a.py'],
          ['M', 'pkg/b.py'],
          ['M', 'pkg/c.py'],
          ['M', 'pkg/d.py'],
          ['M', 'tests/test_a.py'],
        ]),
      ),
    ).toMatch(/^changes 4 source files \(the rule allows at most 3\)/)
    expect(
      reason(
        commit([
          ['M', 'pkg/a.py'],
          ['M', 'tests/conftest.py'],
        ]),
      ),
    ).toMatch(/^changes no test file/)
    expect(
      reason(
        commit([
          ['M', 'pkg/a.py'],
          ['D', 'tests/test_a.py'],
        ]),
      ),
    ).toMatch(/^changes no test file/)
  })

  it('names the option that is wrong', () => {
    expect(() => buildRule({ subject: '(' })).toThrow(SpecError)
    expect(() => buildRule({ since: 'last tuesday' })).toThrow(/--since: "last tuesday" is not a date/)
    expect(() => buildRule({ maxSourceFiles: 0 })).toThrow(/--max-source-files/)
  })
})
