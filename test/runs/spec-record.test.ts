import { describe, expect, test } from 'vitest'
import { knownSpecHashes, reviseSpecRecord, type RecordedSpec } from '../../src/runs/spec-record.ts'

const hash = (c: string) => c.repeat(64)
const manifest = (seeds: number) => ({ experiment: { name: 'pilot', seeds }, files: {} })
const now = new Date('2026-10-21T10:00:00Z')
const source = { file: 'tasks/pilot/experiment.ts', exportName: 'default' }

const recorded: RecordedSpec = { specSha256: hash('a'), manifest: manifest(3), changeLog: [], source, plan: [{ task: '001', arm: 'a', seed: 1, order: 0 }] } as RecordedSpec

describe('spec.json revisions', () => {
  test('the same spec and log: nothing to write', () => {
    expect(reviseSpecRecord(recorded, { specSha256: hash('a'), manifest: manifest(3), changeLog: [], source }, 4, now)).toBeUndefined()
  })

  test('a longer log under the same spec only updates the log, keeping every other field', () => {
    const entry = { date: '2026-10-21', change: 'note', reason: 'pilot complete' }
    expect(reviseSpecRecord(recorded, { specSha256: hash('a'), manifest: manifest(3), changeLog: [entry], source }, 4, now)).toEqual({ ...recorded, changeLog: [entry] })
  })

  test('a new spec under recorded runs moves the recorded one, whole, into earlier', () => {
    const entry = { date: '2026-10-21', change: 'seeds: 3 → 5', reason: 'precision' }
    const revised = reviseSpecRecord(recorded, { specSha256: hash('b'), manifest: manifest(5), changeLog: [entry], source }, 4, now)!
    expect(revised).toMatchObject({ specSha256: hash('b'), changeLog: [entry], earlier: [{ ...recorded, replacedAt: '2026-10-21T10:00:00.000Z' }] })
    expect(knownSpecHashes(revised)).toEqual([hash('b'), hash('a')])
    const again = reviseSpecRecord(revised, { specSha256: hash('c'), manifest: manifest(6), changeLog: [entry, entry], source }, 9, now)!
    expect(knownSpecHashes(again)).toEqual([hash('c'), hash('b'), hash('a')])
  })

  test('before any run is recorded the new spec simply replaces the recorded one', () => {
    const revised = reviseSpecRecord(recorded, { specSha256: hash('b'), manifest: manifest(5), changeLog: [], source }, 0, now)!
    expect(revised.specSha256).toBe(hash('b'))
    expect(revised.earlier).toBeUndefined()
  })
})
