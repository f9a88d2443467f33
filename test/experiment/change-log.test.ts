import { describe, expect, test } from 'vitest'
import { checkChangeLog, type ChangeLogCheck } from '../../src/experiment/change-log.ts'
import { SpecError } from '../../src/errors.ts'
import { parseExperiment } from '../../src/experiment/parse.ts'

const entry = (date: string, change = 'seeds: 3 → 5', reason = 'more precision') => ({ date, change, reason })

function check(overrides: Partial<ChangeLogCheck>): ChangeLogCheck {
  return {
    experiment: 'pilot',
    file: 'tasks/pilot/experiment.ts',
    recordedIn: 'bench/task_outcome/pilot/spec.json',
    recorded: [],
    current: [],
    recordedRuns: 4,
    lastRunDate: '2026-10-20',
    specChanges: null,
    hashes: { recorded: 'a'.repeat(64), current: 'b'.repeat(64) },
    ...overrides,
  }
}

describe('the change log rule', () => {
  test('before the first recorded run anything goes', () => {
    expect(() =>
      checkChangeLog(check({ recordedRuns: 0, lastRunDate: null, recorded: [entry('2026-10-01')], current: [], specChanges: ['experiment field seeds: 3 → 5'] })),
    ).not.toThrow()
  })

  test('a changed spec without a new entry is refused, naming each change and the entry to add', () => {
    const run = () => checkChangeLog(check({ specChanges: ['experiment field seeds: 3 → 5', 'tasks/pilot/001-a/task.md changed'] }))
    expect(run).toThrow(SpecError)
    expect(run).toThrow(/ {2}- experiment field seeds: 3 → 5\n {2}- tasks\/pilot\/001-a\/task\.md changed\n/)
    expect(run).toThrow(/change: "experiment field seeds: 3 → 5", reason: '…'/)
  })

  test('a changed spec with a new entry dated on the day of the last run is accepted', () => {
    expect(() => checkChangeLog(check({ current: [entry('2026-10-20')], specChanges: ['experiment field seeds: 3 → 5'] }))).not.toThrow()
  })

  test('a new entry dated before the last recorded run is refused, even when the spec did not change', () => {
    expect(() => checkChangeLog(check({ current: [entry('2026-10-19', 'a note')] }))).toThrow(/dated before the last recorded run \(2026-10-20\)/)
  })

  test('a note added without a change of the spec is accepted', () => {
    expect(() =>
      checkChangeLog(check({ recorded: [entry('2026-10-14')], current: [entry('2026-10-14'), entry('2026-10-21', 'pilot complete', 'all runs recorded')] })),
    ).not.toThrow()
  })

  test('a recorded entry edited or deleted is refused, naming it', () => {
    expect(() => checkChangeLog(check({ recorded: [entry('2026-10-14')], current: [entry('2026-10-14', 'seeds: 3 → 4')] }))).toThrow(
      /change log entry 1 \(2026-10-14 — seeds: 3 → 5 \(reason: more precision\)\) was edited/,
    )
    expect(() => checkChangeLog(check({ recorded: [entry('2026-10-14'), entry('2026-10-15')], current: [entry('2026-10-14')] }))).toThrow(/change log entry 2 .* was deleted/)
  })

  test('the experiment schema keeps the log in date order and refuses an entry without a reason', () => {
    const base = { name: 'pilot', agent: { kind: 'noop' }, arms: { a: {}, b: {} }, control: 'a', budgetUsd: 1 }
    expect(() => parseExperiment({ ...base, preregistration: { changes: [entry('2026-10-20'), entry('2026-10-14')] } }, 'experiment.ts')).toThrow(
      /preregistration\.changes\.1\.date/,
    )
    expect(() => parseExperiment({ ...base, preregistration: { changes: [{ date: '2026-10-20', change: 'x', reason: ' ' }] } }, 'experiment.ts')).toThrow(
      /preregistration\.changes\.0\.reason/,
    )
    expect(() => parseExperiment({ ...base, preregistration: { changes: [{ date: '20.10.2026', change: 'x', reason: 'y' }] } }, 'experiment.ts')).toThrow(
      /preregistration\.changes\.0\.date/,
    )
  })
})
