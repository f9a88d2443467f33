import { appendFile, mkdir, mkdtemp, rm, symlink, truncate, unlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { AppendOnlyTail, vanished } from '../../src/agents/append-only-tail.ts'

// The tail on real files, written the way a session and a hostile add-on inside it would: appends are copied,
// anything that takes back what was written is named. Each step waits until the tail has looked (it looks every
// 50 ms), by polling what it holds, never by a fixed sleep.

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'append-only-tail-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const isLog = (name: string) => name.endsWith('.jsonl')

/** Starts a tail on `dir/sessions` with `file` written (and seen) first. */
async function tailed(content: string): Promise<{ tail: AppendOnlyTail; file: string }> {
  const file = path.join(dir, 'sessions/2026/12/01/rollout-1.jsonl')
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, content)
  const tail = AppendOnlyTail.start(path.join(dir, 'sessions'), isLog)
  await seen(tail, file, content)
  return { tail, file }
}

/** Waits until the tail's copy of `file` holds `content` (it has looked since the write). */
async function seen(tail: AppendOnlyTail, file: string, content: string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if ((await tail.peek()).get(file) === content) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`the tail never saw ${file} hold ${JSON.stringify(content)}`)
}

describe('tailing a session usage file into an append-only copy', () => {
  test('what the session appends is copied, files that appear later included, and nothing is a violation', async () => {
    const { tail, file } = await tailed('{"a":1}\n')
    await appendFile(file, '{"b":2}\n')
    const later = path.join(dir, 'sessions/2026/12/01/rollout-2.jsonl')
    await writeFile(later, '{"c":3}\n')
    await writeFile(path.join(dir, 'sessions/notes.txt'), 'not a usage file')
    const result = await tail.stop()
    expect(result.violations).toEqual([])
    expect([...result.copies]).toEqual([
      [file, '{"a":1}\n{"b":2}\n'],
      [later, '{"c":3}\n'],
    ])
  })

  test('a rewrite of what was seen (the same length, the modification time set back) is named, and the copy keeps what the session wrote', async () => {
    const { tail, file } = await tailed('{"usage":{"input_tokens":90000}}\n')
    await writeFile(file, '{"usage":{"input_tokens":00009}}\n')
    const { utimes } = await import('node:fs/promises')
    await utimes(file, new Date(0), new Date(0))
    const result = await tail.stop()
    expect(result.violations).toEqual([`${file} was rewritten while the session ran: its first 33 bytes are no longer what the session wrote`])
    expect(result.copies.get(file)).toBe('{"usage":{"input_tokens":90000}}\n')
  })

  test('a truncation is named', async () => {
    const { tail, file } = await tailed('{"a":1}\n{"b":2}\n')
    await truncate(file, 8)
    expect((await tail.stop()).violations).toEqual([`${file} was truncated while the session ran (16 bytes seen, 8 left)`])
  })

  test('a deletion is named', async () => {
    const { tail, file } = await tailed('{"a":1}\n')
    await unlink(file)
    expect((await tail.stop()).violations).toEqual([`${file} was deleted while the session ran`])
  })

  test('a link put in its place (to a file the harness would read) is never followed: it counts as a deletion', async () => {
    const { tail, file } = await tailed('{"a":1}\n')
    const elsewhere = path.join(dir, 'elsewhere.jsonl')
    await writeFile(elsewhere, '{"a":1}\n{"b":2}\n')
    await unlink(file)
    await symlink(elsewhere, file)
    const result = await tail.stop()
    expect(result.violations).toEqual([`${file} was deleted while the session ran`])
    expect(result.copies.get(file)).toBe('{"a":1}\n')
  })
})

// A file gone between the tail's listing and its opening (a race CI met) is named by why it could not be opened,
// the same words as a deletion seen in the listing: the run is tampered either way, and the message is stable.
describe('a file that vanishes between listing and opening', () => {
  test.each([
    ['ENOENT', 'was deleted while the session ran'],
    ['ELOOP', 'was replaced by a link while the session ran'],
    ['EACCES', 'could no longer be read while the session ran (EACCES)'],
  ])('%s: %s', (code, words) => {
    expect(vanished(Object.assign(new Error(code), { code }))).toBe(words)
  })
})
