import { mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { DataError } from '../../src/errors.ts'
import { anchorOf, checkAnchor, readAnchor, writeAnchor } from '../../src/runs/anchor.ts'
import { lineSha256 } from '../../src/runs/chain.ts'

// The anchor against the head of a verified chain, case by case: what it lets through (in step, or one completed
// append ahead of it after a crash between the two phases), and what it names as tampering, with the line.

const RESTORE = 'Restore both files from a copy.'
const last = lineSha256('{"line":3}')
const next = lineSha256('{"line":4}')
const head = (lines: number, sha256: string) => ({ lines, sha256, bytes: 100 * lines })
const check = (atHead: ReturnType<typeof head>, anchor: ReturnType<typeof anchorOf>) => checkAnchor('runs.jsonl', atHead, anchor, RESTORE)
const refusal = (run: () => unknown): Error => {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(DataError)
    return error as Error
  }
  throw new Error('expected a DataError, and nothing was thrown')
}

describe('checkAnchor', () => {
  test('a head where the anchor left it is in step', () => {
    expect(check(head(3, last), anchorOf(head(3, last)))).toEqual({ lagging: false })
  })

  test("the anchor's hash at another line count is not in step: the hash alone does not vouch for the head", () => {
    expect(refusal(() => check(head(5, last), anchorOf(head(3, last)))).message).toMatch(/^runs\.jsonl:4: not written by the recorder/)
  })

  test('a head one line past an anchor that named that line as pending lags behind (a crash between the phases)', () => {
    expect(check(head(4, next), { ...anchorOf(head(3, last)), pending: next })).toEqual({ lagging: true })
  })

  test('a line appended past an anchor with nothing pending is not the recorder’s, and the message counts the lines after its last append', () => {
    expect(refusal(() => check(head(5, next), anchorOf(head(3, last)))).message).toBe(
      'runs.jsonl:4: not written by the recorder: its last append was line 3 (runs.jsonl.head), and 2 line(s) follow it (a record added by hand, or forged: a run recorded this way would never be made). Restore both files from a copy.',
    )
    expect(refusal(() => check(head(4, next), anchorOf(head(3, last)))).message).toMatch(/^runs\.jsonl:4: not written by the recorder: .* and 1 line\(s\) follow it/)
  })

  test('a pending line does not cover another line in its place, nor two lines, nor the same count of lines', () => {
    const pending = { ...anchorOf(head(3, last)), pending: next }
    expect(refusal(() => check(head(4, lineSha256('{"forged":4}')), pending)).message).toMatch(/^runs\.jsonl:4: not written by the recorder/)
    expect(refusal(() => check(head(5, next), pending)).message).toMatch(/^runs\.jsonl:4: not written by the recorder: .* and 2 line\(s\) follow it/)
    expect(refusal(() => check(head(3, next), pending)).message).toMatch(/^runs\.jsonl:3: the last line was changed after the recorder wrote it/)
  })

  test('lines removed from the end are named by their range', () => {
    expect(refusal(() => check(head(1, lineSha256('{"line":1}')), anchorOf(head(3, last)))).message).toBe(
      'runs.jsonl:2: line(s) 2–3 were removed from the end: the recorder wrote 3 line(s) (runs.jsonl.head). Restore both files from a copy.',
    )
  })

  test('a last line changed in place is named, with the start of the SHA-256 the anchor holds', () => {
    expect(refusal(() => check(head(3, next), anchorOf(head(3, last)))).message).toBe(
      `runs.jsonl:3: the last line was changed after the recorder wrote it (runs.jsonl.head holds its SHA-256 ${last.slice(0, 12)}…). Restore both files from a copy.`,
    )
  })
})

describe('readAnchor', () => {
  const runsFile = async () => path.join(await mkdtemp(path.join(os.tmpdir(), 'task-outcome-anchor-')), 'runs.jsonl')

  test('reads back what writeAnchor wrote, and nothing when there is no anchor', async () => {
    const file = await runsFile()
    expect(readAnchor(file)).toBeUndefined()
    writeAnchor(file, { ...anchorOf(head(3, last)), pending: next })
    expect(readAnchor(file)).toEqual({ lines: 3, sha256: last, bytes: 300, pending: next })
  })

  test('an anchor that is not JSON is an edit, named with the file and what to do', async () => {
    const file = await runsFile()
    await writeFile(`${file}.head`, '{"lines": 3,')
    expect(refusal(() => readAnchor(file)).message).toMatch(
      new RegExp(`^${file}\\.head: not valid JSON \\(.+\\): the recorder writes it whole, so it was edited\\. Restore it from a copy, together with its runs\\.jsonl\\.$`),
    )
  })

  test('JSON that is not an anchor is refused, naming the field', async () => {
    const file = await runsFile()
    await writeFile(`${file}.head`, JSON.stringify({ lines: 3, sha256: 'not-a-hash', bytes: 300, pending: null }))
    expect(refusal(() => readAnchor(file)).message).toMatch(new RegExp(`^${file}\\.head: not an anchor of a runs file \\(.*sha256.*\\)$`))
  })
})
