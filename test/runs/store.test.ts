import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import { DataError } from '../../src/errors.ts'
import { readAnchor, writeAnchor } from '../../src/runs/anchor.ts'
import { appendRun, checkPlanned, formatRuns, parseRuns, readRuns, runsFilePath } from '../../src/runs/store.ts'
import { sampleRecord } from '../helpers/runs-file.ts'

async function tempFile(): Promise<string> {
  return path.join(await mkdtemp(path.join(os.tmpdir(), 'task-outcome-store-')), 'runs.jsonl')
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex')

/** Three records as the recorder writes them, and their lines. */
async function threeRuns(): Promise<{ file: string; lines: string[] }> {
  const file = await tempFile()
  for (const seed of [1, 2, 3]) appendRun(file, sampleRecord({ seed, order: seed - 1, transcript: null, transcriptSha256: null }))
  return { file, lines: (await readFile(file, 'utf8')).split('\n').slice(0, -1) }
}

const quiet = { warn: () => undefined }

describe('runs.jsonl', () => {
  test('appends one line per record and reads them back', async () => {
    const { file } = await threeRuns()
    expect(readRuns(file).records.map((r) => r.seed)).toEqual([1, 2, 3])
  })

  test('each line carries the SHA-256 of the line before it, and line 1 that of the empty string', async () => {
    const { lines } = await threeRuns()
    const links = lines.map((line) => (JSON.parse(line) as { prevSha256: string }).prevSha256)
    expect(links).toEqual([sha(''), sha(lines[0]!), sha(lines[1]!)])
  })

  test('a missing file holds no runs', async () => {
    const file = await tempFile()
    expect(readRuns(file)).toEqual({ file, records: [], head: { lines: 0, sha256: sha(''), bytes: 0 }, transcripts: { verified: 0, absent: 0, none: 0 }, torn: null })
    expect(runsFilePath('out')).toBe(path.join('out', 'runs.jsonl'))
  })

  test('refuses to write a record that breaks the schema, naming the field', async () => {
    const file = await tempFile()
    expect(() => appendRun(file, sampleRecord({ costUsd: -1 }))).toThrow(/^refusing to record 001-a › baseline › seed 1: field costUsd/)
    expect(readRuns(file).records).toEqual([])
  })

  test('refuses to write a record that contradicts itself', async () => {
    const file = await tempFile()
    expect(() => appendRun(file, sampleRecord({ oracle: { verifyExit: 1 } }))).toThrow(
      /^refusing to record 001-a › baseline › seed 1: it contradicts itself \(solved, but the oracle says verifyExit 1\)/,
    )
    expect(readRuns(file).records).toEqual([])
  })

  test('names every contradiction of a record it refuses, one after another', async () => {
    const file = await tempFile()
    expect(() => appendRun(file, sampleRecord({ oracle: { verifyExit: 1 }, finishedAt: '2026-11-30T09:59:59.000Z' }))).toThrow(
      /^refusing to record 001-a › baseline › seed 1: it contradicts itself \(solved, but the oracle says verifyExit 1; finishedAt is before startedAt\)$/,
    )
    expect(readRuns(file).records).toEqual([])
  })

  test('a malformed line is an error naming the file, the line and the field', () => {
    const text = formatRuns([sampleRecord(), { ...sampleRecord({ seed: 2 }), outcome: 'maybe' }])
    expect(() => parseRuns(text, 'runs.jsonl')).toThrow(DataError)
    expect(() => parseRuns(text, 'runs.jsonl')).toThrow(/runs\.jsonl:2: field outcome/)
    expect(() => parseRuns(`${formatRuns([sampleRecord()])}not json\n`, 'runs.jsonl')).toThrow(/runs\.jsonl:2: not valid JSON/)
  })

  test('a line without prevSha256 is refused, naming the field', () => {
    expect(() => parseRuns(`${JSON.stringify(sampleRecord())}\n`, 'runs.jsonl')).toThrow(/runs\.jsonl:1: field prevSha256/)
  })

  test('a rewritten line is found at the next line, which no longer links to it', async () => {
    const { file, lines } = await threeRuns()
    lines[0] = lines[0]!.replace('"costUsd":0.05', '"costUsd":0.01')
    await writeFile(file, `${lines.join('\n')}\n`)
    expect(() => readRuns(file)).toThrow(
      new RegExp(
        `runs\\.jsonl:2: the hash chain breaks here: it does not link to line 1 \\(prevSha256 ${sha(lines[0]!.replace('"costUsd":0.01', '"costUsd":0.05')).slice(0, 12)}…, ` +
          `line 1 hashes to ${sha(lines[0]!).slice(0, 12)}…\\): line 1 was changed, or a line was removed or inserted between them, after they were recorded\\. Records are never edited`,
      ),
    )
  })

  test('text without its last newline parses to every record (parseRuns is given what the tests and tools write)', () => {
    const text = formatRuns([sampleRecord(), sampleRecord({ seed: 2, order: 1 })])
    expect(parseRuns(text.slice(0, -1), 'runs.jsonl').map((r) => r.seed)).toEqual([1, 2])
  })

  test('a line of spaces is an empty line, named as such', async () => {
    const { file, lines } = await threeRuns()
    await writeFile(file, `${lines[0]}\n   \n${lines.slice(1).join('\n')}\n`)
    expect(() => readRuns(file)).toThrow(/runs\.jsonl:2: an empty line; the recorder never writes one/)
  })

  test('a deleted line is found at the line after the gap', async () => {
    const { file, lines } = await threeRuns()
    await writeFile(file, `${[lines[0], lines[2]].join('\n')}\n`)
    expect(() => readRuns(file)).toThrow(/runs\.jsonl:2: the hash chain breaks here/)
  })

  test('a deleted first line is found at the new first line', async () => {
    const { file, lines } = await threeRuns()
    await writeFile(file, `${lines.slice(1).join('\n')}\n`)
    expect(() => readRuns(file)).toThrow(/runs\.jsonl:1: the hash chain breaks here: line 1 must link to the empty string/)
  })

  test('an inserted line is found at itself, or at the line after it when it links correctly', async () => {
    const { file, lines } = await threeRuns()
    const forged = JSON.stringify({ ...sampleRecord({ seed: 9, order: 8 }), prevSha256: sha(lines[0]!) })
    await writeFile(file, `${[lines[0], forged, lines[1], lines[2]].join('\n')}\n`)
    expect(() => readRuns(file)).toThrow(/runs\.jsonl:3: the hash chain breaks here: it does not link to line 2/)
  })

  test('a CRLF-converted file is named as such', async () => {
    const { file, lines } = await threeRuns()
    await writeFile(file, `${lines.join('\r\n')}\r\n`)
    expect(() => readRuns(file)).toThrow(/after they were recorded \(the line ends in a carriage return: was the file converted to CRLF line endings\?\)\. Records/)
  })

  test('an empty line is refused, naming it', async () => {
    const { file, lines } = await threeRuns()
    await writeFile(file, `${lines[0]}\n\n${lines.slice(1).join('\n')}\n`)
    expect(() => readRuns(file)).toThrow(/runs\.jsonl:2: an empty line/)
  })

  test('the same (task, arm, seed) twice is an error naming both lines', () => {
    const text = formatRuns([sampleRecord(), sampleRecord({ seed: 2, order: 1 }), sampleRecord()])
    expect(() => parseRuns(text, 'runs.jsonl')).toThrow(/runs\.jsonl:3: 001-a › baseline › seed 1 is already recorded on line 1/)
  })

  test('a record whose fields contradict each other is an error naming its line and the fields', () => {
    const text = formatRuns([
      sampleRecord(),
      { ...sampleRecord({ seed: 2, order: 1 }), oracle: { failToPass: { passed: 0, total: 1 }, passToPass: { passed: 2, total: 2 }, failing: ['t'] } },
    ])
    expect(() => parseRuns(text, 'runs.jsonl')).toThrow(/runs\.jsonl:2: 001-a › baseline › seed 2 contradicts itself \(solved, but the oracle has FAIL_TO_PASS 0\/1/)
    const twice = formatRuns([sampleRecord({ oracle: { verifyExit: 1 }, finishedAt: '2026-11-30T09:59:59.000Z' })])
    expect(() => parseRuns(twice, 'runs.jsonl')).toThrow(
      /runs\.jsonl:1: 001-a › baseline › seed 1 contradicts itself \(solved, but the oracle says verifyExit 1; finishedAt is before startedAt\): the harness/,
    )
  })

  test('a run outside the plan, or at another place in it, is an error naming the line', () => {
    const plan = [{ task: '001-a', arm: 'baseline', seed: 1, order: 0 }]
    expect(parseRuns(formatRuns([sampleRecord()]), 'runs.jsonl', plan)).toHaveLength(1)
    expect(() => parseRuns(formatRuns([sampleRecord(), sampleRecord({ seed: 7, order: 1 })]), 'runs.jsonl', plan)).toThrow(
      /runs\.jsonl:2: 001-a › baseline › seed 7 is not a run of the experiment's plan/,
    )
    expect(() => parseRuns(formatRuns([sampleRecord({ order: 3 })]), 'runs.jsonl', plan)).toThrow(/recorded at order 3, but the plan puts it at 0/)
  })

  test("given the spec's hash, the plan check passes over the records of earlier specs and checks that spec's", () => {
    const plan = [{ task: '001-a', arm: 'baseline', seed: 1, order: 0 }]
    const records = parseRuns(formatRuns([sampleRecord({ seed: 7, order: 5 }), sampleRecord({ specSha256: 'b'.repeat(64) })]), 'runs.jsonl')
    expect(() => checkPlanned(records, plan, 'runs.jsonl', 'b'.repeat(64))).not.toThrow()
    expect(() => checkPlanned(records, plan, 'runs.jsonl', 'a'.repeat(64))).toThrow(/runs\.jsonl:1: 001-a › baseline › seed 7 is not a run/)
    expect(() => checkPlanned(records, plan, 'runs.jsonl')).toThrow(/runs\.jsonl:1: /)
  })

  test('readers keep fields they do not know', () => {
    const [record] = parseRuns(formatRuns([{ ...sampleRecord(), extra: 'kept' }]), 'runs.jsonl')
    expect(record).toMatchObject({ extra: 'kept' })
  })

  test('a torn last line is left out of a read with a warning naming it, and the file is not touched', async () => {
    const { file } = await threeRuns()
    const torn = JSON.stringify(sampleRecord({ seed: 4 })).slice(0, 40)
    await writeFile(file, torn, { flag: 'a' })
    const before = await readFile(file, 'utf8')
    const warnings: string[] = []
    const read = readRuns(file, { warn: (message) => warnings.push(message) })
    expect(read.records.map((r) => r.seed)).toEqual([1, 2, 3])
    expect(read.torn).toEqual({ line: 4, bytes: 40, setAsideTo: null })
    expect(warnings).toEqual([
      `${file}:4: the last line has no newline (40 bytes: a write cut short, e.g. the process was killed); it is not a recorded run and is left out of this read; the next run of the experiment moves it to a side file`,
    ])
    expect(await readFile(file, 'utf8')).toBe(before)
  })

  test('a writer moves a torn last line to a named side file, keeping its bytes, and reads on', async () => {
    const { file } = await threeRuns()
    const torn = JSON.stringify(sampleRecord({ seed: 4 })).slice(0, 40)
    await writeFile(file, torn, { flag: 'a' })
    const warnings: string[] = []
    const read = readRuns(file, { setAsideTorn: true, warn: (message) => warnings.push(message) })
    expect(read.records).toHaveLength(3)
    expect(await readFile(read.torn!.setAsideTo!, 'utf8')).toBe(torn)
    expect(path.basename(read.torn!.setAsideTo!)).toMatch(/^runs\.jsonl\.torn-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/)
    expect(warnings).toEqual([
      `${file}:4: the last line has no newline (40 bytes: a write cut short, e.g. the process was killed); it is not a recorded run; moved it to ${path.basename(read.torn!.setAsideTo!)}`,
    ])
    expect(readRuns(file).torn).toBeNull()
  })

  test('a second torn line set aside in the same millisecond goes to a side file of its own: the first is never overwritten', async () => {
    // The clock is held (Date only) so that both set-asides get the same time: on a real clock two need one millisecond.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-12-04T03:00:00.000Z') })
    try {
      const { file } = await threeRuns()
      const sides: string[] = []
      for (const seed of [4, 5]) {
        await writeFile(file, JSON.stringify(sampleRecord({ seed })).slice(0, 30 + seed), { flag: 'a' })
        sides.push(readRuns(file, { setAsideTorn: true, warn: () => undefined }).torn!.setAsideTo!)
      }
      expect(sides.map((side) => path.basename(side))).toEqual(['runs.jsonl.torn-2026-12-04T03-00-00-000Z', 'runs.jsonl.torn-2026-12-04T03-00-00-000Z-2'])
      expect(await readFile(sides[0]!, 'utf8')).toBe(JSON.stringify(sampleRecord({ seed: 4 })).slice(0, 34))
      expect(await readFile(sides[1]!, 'utf8')).toBe(JSON.stringify(sampleRecord({ seed: 5 })).slice(0, 35))
      expect(readRuns(file).records).toHaveLength(3)
    } finally {
      vi.useRealTimers()
    }
  })

  test('a line cut short by a crash is set aside by the next append, not lost, and the next record starts a fresh line', async () => {
    const { file } = await threeRuns()
    const torn = JSON.stringify(sampleRecord({ seed: 4 })).slice(0, 40)
    await writeFile(file, torn, { flag: 'a' })
    const warnings: string[] = []
    appendRun(file, sampleRecord({ seed: 5, order: 4, transcript: null, transcriptSha256: null }), { warn: (message) => warnings.push(message) })
    expect(readRuns(file).records.map((r) => r.seed)).toEqual([1, 2, 3, 5])
    const sideFiles = (await readdir(path.dirname(file))).filter((name) => name.startsWith('runs.jsonl.torn-'))
    expect(sideFiles).toHaveLength(1)
    expect(warnings).toEqual([`${file}: the last line had no newline (a write cut short); moved it to ${sideFiles[0]} before recording 001-a › baseline › seed 5`])
    expect(await readFile(path.join(path.dirname(file), sideFiles[0]!), 'utf8')).toBe(torn)
  })

  test('an append given the head it last saw refuses when the file changed since, and appends nothing', async () => {
    const { file } = await threeRuns()
    const { head } = readRuns(file)
    const forged = formatRuns([sampleRecord(), sampleRecord({ seed: 2, order: 1 }), sampleRecord({ seed: 3, order: 2 }), sampleRecord({ seed: 4, order: 3 })])
    await writeFile(file, forged)
    expect(() => appendRun(file, sampleRecord({ seed: 5, order: 4 }), { head })).toThrow(/changed by something other than the recorder since it wrote line 3/)
    expect(await readFile(file, 'utf8')).toBe(forged)
  })

  test('an append given the head refuses a change of the size alone, of the last line alone, and anything in a file it read empty', async () => {
    const { file, lines } = await threeRuns()
    const { head } = readRuns(file)
    const next = sampleRecord({ seed: 4, order: 3, transcript: null, transcriptSha256: null })
    // Line 1 rewritten longer: the last line (and so its hash) is the same, the size is not.
    await writeFile(file, `${[lines[0]!.replace('"costUsd":0.05', '"costUsd":0.050'), lines[1], lines[2]].join('\n')}\n`)
    expect(() => appendRun(file, next, { head })).toThrow(
      `${file}: changed by something other than the recorder since it wrote line 3 (now ${head.bytes + 1} bytes, then ${head.bytes}; its last line is the same): refusing to record 001-a › baseline › seed 4 after lines it did not write. Find what wrote to the file; Records are never edited`,
    )
    // The last line rewritten to the same length: the size is the same, the last line is not.
    await writeFile(file, `${[lines[0], lines[1], lines[2]!.replace('"costUsd":0.05', '"costUsd":0.01')].join('\n')}\n`)
    expect(() => appendRun(file, next, { head })).toThrow(`(now ${head.bytes} bytes, then ${head.bytes}; its last line differs)`)
    const empty = await tempFile()
    const emptyHead = readRuns(empty).head
    await writeFile(empty, formatRuns([sampleRecord()]))
    expect(() => appendRun(empty, next, { head: emptyHead })).toThrow(/changed by something other than the recorder since it read it empty \(now \d+ bytes, then 0;/)
  })

  test('an append finds the line before it however long it is (65,535 bytes, 70,000, one past 1 MiB), and counts the lines without a head', async () => {
    const file = await tempFile()
    const padded = (seed: number, length: number) => {
      const base = JSON.stringify({ ...sampleRecord({ seed, order: seed - 1, transcript: null, transcriptSha256: null }), pad: '', prevSha256: sha('') })
      return { ...sampleRecord({ seed, order: seed - 1, transcript: null, transcriptSha256: null }), pad: 'x'.repeat(length - base.length) }
    }
    const text = formatRuns([padded(1, 1024 * 1024 + 1), padded(2, 65_535)])
    expect(text.split('\n').map((line) => line.length)).toEqual([1024 * 1024 + 1, 65_535, 0])
    await writeFile(file, text)
    appendRun(file, sampleRecord({ seed: 3, order: 2, transcript: null, transcriptSha256: null }))
    expect(readRuns(file).records.map((r) => r.seed)).toEqual([1, 2, 3])
    expect(readAnchor(file)).toMatchObject({ lines: 3, pending: null })
    // A last line longer than one 64 KiB read from the end.
    const long = await tempFile()
    await writeFile(long, formatRuns([padded(1, 70_000)]))
    appendRun(long, sampleRecord({ seed: 2, order: 1, transcript: null, transcriptSha256: null }))
    expect(readRuns(long).records.map((r) => r.seed)).toEqual([1, 2])
  })

  test('an append given the right head links the new line and returns the next head', async () => {
    const { file } = await threeRuns()
    const { head } = readRuns(file)
    const next = appendRun(file, sampleRecord({ seed: 4, order: 3, transcript: null, transcriptSha256: null }), { head })
    expect(next).toEqual(readRuns(file).head)
    expect(next.lines).toBe(4)
  })

  test('formatRuns writes what the recorder writes', async () => {
    const { file } = await threeRuns()
    const records = [1, 2, 3].map((seed) => sampleRecord({ seed, order: seed - 1, transcript: null, transcriptSha256: null }))
    expect(formatRuns(records)).toBe(await readFile(file, 'utf8'))
  })
})

describe('the anchor beside runs.jsonl', () => {
  test('a well-linked line appended by anything but the recorder is refused, naming it', async () => {
    const { file, lines } = await threeRuns()
    const forged = JSON.stringify({ ...sampleRecord({ seed: 4, order: 3, transcript: null, transcriptSha256: null }), prevSha256: sha(lines[2]!) })
    await writeFile(file, `${forged}\n`, { flag: 'a' })
    expect(() => readRuns(file)).toThrow(/runs\.jsonl:4: not written by the recorder: its last append was line 3/)
  })

  test('a changed last line is refused, naming it', async () => {
    const { file, lines } = await threeRuns()
    lines[2] = lines[2]!.replace('"costUsd":0.05', '"costUsd":0.01')
    await writeFile(file, `${lines.join('\n')}\n`)
    expect(() => readRuns(file)).toThrow(/runs\.jsonl:3: the last line was changed after the recorder wrote it/)
  })

  test('a last line removed is refused, naming it', async () => {
    const { file, lines } = await threeRuns()
    await writeFile(file, `${lines.slice(0, 2).join('\n')}\n`)
    expect(() => readRuns(file)).toThrow(/runs\.jsonl:3: line\(s\) 3–3 were removed from the end/)
  })

  test('a crash between the append and the anchor reads as a crash: the records load and the writer moves the anchor', async () => {
    const { file, lines } = await threeRuns()
    writeAnchor(file, { lines: 2, sha256: sha(lines[1]!), bytes: Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`), pending: sha(lines[2]!) })
    expect(readRuns(file).records).toHaveLength(3)
    readRuns(file, { setAsideTorn: true })
    expect(readAnchor(file)).toMatchObject({ lines: 3, sha256: sha(lines[2]!), pending: null })
  })

  test('a crash mid-line (torn, anchor pending) reads as a crash', async () => {
    const { file, lines } = await threeRuns()
    const next = JSON.stringify({ ...sampleRecord({ seed: 4, order: 3 }), prevSha256: sha(lines[2]!) })
    writeAnchor(file, { lines: 3, sha256: sha(lines[2]!), bytes: 0, pending: sha(next) })
    await writeFile(file, next.slice(0, 30), { flag: 'a' })
    expect(readRuns(file, { setAsideTorn: true, ...quiet }).records).toHaveLength(3)
  })

  test('records without the anchor are read by readers, and refused by the recorder', async () => {
    const file = await tempFile()
    await writeFile(file, formatRuns([sampleRecord()]))
    expect(readRuns(file).records).toHaveLength(1)
    expect(() => readRuns(file, { setAsideTorn: true })).toThrow(
      /1 record\(s\) but no runs\.jsonl\.head beside them: .* Analyse it with `task-outcome analyze`, but record new runs into a new output folder\.$/,
    )
    await writeFile(file, '')
    expect(readRuns(file, { setAsideTorn: true }).records).toEqual([])
  })

  test('a reader leaves an anchor one append behind as it is; only the writer moves it up', async () => {
    const { file, lines } = await threeRuns()
    const behind = { lines: 2, sha256: sha(lines[1]!), bytes: Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`), pending: sha(lines[2]!) }
    writeAnchor(file, behind)
    expect(readRuns(file).records).toHaveLength(3)
    expect(readAnchor(file)).toEqual(behind)
  })
})

describe('transcripts', () => {
  async function withTranscript(text: string): Promise<{ file: string; transcript: string }> {
    const file = await tempFile()
    const transcript = path.join(path.dirname(file), 'artifacts/001-a/baseline/seed-1/transcript.jsonl')
    await mkdir(path.dirname(transcript), { recursive: true })
    await writeFile(transcript, text)
    appendRun(file, sampleRecord({ transcriptSha256: sha(text) }))
    return { file, transcript }
  }

  test('a transcript present beside the records is checked against its SHA-256', async () => {
    const { file } = await withTranscript('{"type":"result"}\n')
    expect(readRuns(file).transcripts).toEqual({ verified: 1, absent: 0, none: 0 })
  })

  test('a transcript changed after its run is an error naming the line and the file', async () => {
    const { file, transcript } = await withTranscript('{"type":"result","cost":1}\n')
    await writeFile(transcript, '{"type":"result","cost":0.5}\n')
    expect(() => readRuns(file)).toThrow(
      /runs\.jsonl:1: 001-a › baseline › seed 1: its transcript artifacts\/001-a\/baseline\/seed-1\/transcript\.jsonl hashes to \w+, but runs\.jsonl records \w+: the transcript no longer matches/,
    )
  })

  test('an absent transcript is counted, not checked', async () => {
    const { file, transcript } = await withTranscript('x\n')
    await rm(transcript)
    expect(readRuns(file).transcripts).toEqual({ verified: 0, absent: 1, none: 0 })
  })

  test("a transcript path that is not the run's own is refused", () => {
    expect(() => parseRuns(formatRuns([sampleRecord({ transcript: '../../etc/passwd' })]), 'runs.jsonl')).toThrow(/transcript is "\.\.\/\.\.\/etc\/passwd", not this run's/)
  })
})
