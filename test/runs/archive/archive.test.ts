import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createTranscriptArchive } from '../../../src/runs/archive/create.ts'
import { verifyTranscriptArchive } from '../../../src/runs/archive/verify.ts'
import type { RecordedRun } from '../../../src/runs/record.ts'
import { sha256 } from '../../../src/shared/sha256.ts'

/** An output folder with one transcript per run, and the records naming them. */
async function outputFolder(texts: readonly string[]): Promise<{ outDir: string; records: RecordedRun[] }> {
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-archive-test-'))
  const records: RecordedRun[] = []
  for (const [index, text] of texts.entries()) {
    const transcript = `artifacts/00${index + 1}/a/seed-1/transcript.jsonl`
    await mkdir(path.dirname(path.join(outDir, transcript)), { recursive: true })
    await writeFile(path.join(outDir, transcript), text)
    records.push({
      experiment: 'x',
      specSha256: 'f'.repeat(64),
      task: `00${index + 1}`,
      arm: 'a',
      seed: 1,
      outcome: 'solved',
      solved: true,
      costUsd: 0.1,
      costSource: 'agent',
      transcript,
      transcriptSha256: sha256(Buffer.from(text)),
    } as RecordedRun)
  }
  return { outDir, records }
}

describe('the transcript archive', () => {
  test('the same records packed in two places, at two times, give the same bytes', async () => {
    const texts = ['{"type":"result"}\n', 'x'.repeat(70_000), '']
    const first = await outputFolder(texts)
    const second = await outputFolder(texts)
    const runsBytes = Buffer.from('runs\n')
    const a = await createTranscriptArchive({ experiment: 'x', outDir: first.outDir, runsBytes, records: first.records, archiveFile: path.join(first.outDir, 'a.tar.gz') })
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const b = await createTranscriptArchive({ experiment: 'x', outDir: second.outDir, runsBytes, records: second.records, archiveFile: path.join(second.outDir, 'b.tar.gz') })
    expect(a.sha256).toBe(b.sha256)
    expect((await readFile(a.file)).equals(await readFile(b.file))).toBe(true)
    expect(a.transcripts).toBe(3)
    expect((await verifyTranscriptArchive(a.file, first.records)).problems).toEqual([])
  })

  test('a record whose transcript changed since it was recorded is refused, and no archive is written', async () => {
    const { outDir, records } = await outputFolder(['one\n', 'two\n'])
    await writeFile(path.join(outDir, records[1]!.transcript!), 'two, edited\n')
    const archiveFile = path.join(outDir, 'c.tar.gz')
    await expect(createTranscriptArchive({ experiment: 'x', outDir, runsBytes: Buffer.from(''), records, archiveFile })).rejects.toThrow(
      /002 › a › seed 1: its transcript .* no longer matches/,
    )
    await expect(readFile(archiveFile)).rejects.toThrow()
  })

  test('a transcript path that leaves the output folder is refused', async () => {
    const { outDir, records } = await outputFolder(['one\n'])
    const outside = [{ ...records[0]!, transcript: '../../etc/passwd' }] as RecordedRun[]
    await expect(createTranscriptArchive({ experiment: 'x', outDir, runsBytes: Buffer.from(''), records: outside, archiveFile: path.join(outDir, 'd.tar.gz') })).rejects.toThrow(
      /leaves the output folder/,
    )
  })

  test('runs recorded after the archive was made are named as missing', async () => {
    const { outDir, records } = await outputFolder(['one\n', 'two\n'])
    const archive = await createTranscriptArchive({ experiment: 'x', outDir, runsBytes: Buffer.from(''), records: records.slice(0, 1), archiveFile: path.join(outDir, 'e.tar.gz') })
    const { problems, checked } = await verifyTranscriptArchive(archive.file, records)
    expect(checked).toBe(1)
    expect(problems.map((problem) => problem.message)).toEqual([
      'missing: transcripts/artifacts/002/a/seed-1/transcript.jsonl (the transcript of 002 › a › seed 1) is not in the archive',
    ])
  })
})
