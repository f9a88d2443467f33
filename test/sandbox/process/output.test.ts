import { PassThrough, Readable } from 'node:stream'
import { describe, expect, test } from 'vitest'
import { OutputCollector, stripNewline } from '../../../src/sandbox/process/output.ts'

// What a process prints, collected from real streams: each stream's text, the shared interleaving, the lines handed
// on as they come, and the cut past the limit that keeps an endless printer from exhausting memory.

/** A stream that gives `chunks` one by one, then closes. */
function streamOf(...chunks: string[]): Readable {
  return Readable.from(
    chunks.map((chunk) => Buffer.from(chunk, 'utf8')),
    { objectMode: false },
  )
}

describe('stripNewline', () => {
  test.each([
    ['one\n', 'one'],
    ['one\r\n', 'one'],
    ['one\n\n', 'one\n'],
    ['one\r\n\r\n', 'one\r\n'],
    ['one', 'one'],
    ['one\r', 'one\r'],
    ['\n', ''],
    ['\r\n', ''],
    ['', ''],
    ['a\nb', 'a\nb'],
  ])('drops one trailing line break of %j: %j', (text, stripped) => {
    expect(stripNewline(text)).toBe(stripped)
  })
})

describe('OutputCollector', () => {
  test('keeps a stream’s text as it arrived, untruncated under the limit', async () => {
    const collector = new OutputCollector(100)
    await collector.read(streamOf('one\n', 'two\n'))
    expect(collector.text(false)).toStrictEqual({ text: 'one\ntwo\n', truncated: false })
    expect(collector.text(true)).toStrictEqual({ text: 'one\ntwo', truncated: false })
  })

  test('reads the stream as utf-8, a character split between chunks kept whole', async () => {
    const bytes = Buffer.from('é€\n', 'utf8')
    const collector = new OutputCollector(100)
    await collector.read(Readable.from([bytes.subarray(0, 1), bytes.subarray(1, 3), bytes.subarray(3)], { objectMode: false }))
    expect(collector.text(true).text).toBe('é€')
  })

  test('resolves at once, with nothing collected, for a stream that is not there', async () => {
    for (const missing of [null, undefined]) {
      const collector = new OutputCollector(10)
      const lines: string[] = []
      await collector.read(missing, (line) => lines.push(line))
      expect(collector.text(false)).toStrictEqual({ text: '', truncated: false })
      expect(lines).toStrictEqual([])
    }
  })

  test.each([
    ['a chunk that fills the room exactly is not cut', 10, ['0123456789'], '0123456789', false],
    ['a chunk one past the room keeps the head', 10, ['0123456789x'], '0123456789', true],
    ['a chunk that finds the room full is dropped', 4, ['abcd', 'e'], 'abcd', true],
    ['chunks that add up to the room exactly are kept whole', 6, ['abc', 'def'], 'abcdef', false],
    ['the chunk that crosses the limit keeps what fits', 5, ['abc', 'defg', 'h'], 'abcde', true],
    ['no room at all keeps nothing', 0, ['a'], '', true],
  ])('past maxChars: %s', async (_what, maxChars, chunks, text, truncated) => {
    const collector = new OutputCollector(maxChars)
    await collector.read(streamOf(...chunks))
    expect(collector.text(false)).toStrictEqual({ text, truncated })
  })

  test('hands each line to onLine without its line break, every line even past the cut', async () => {
    const collector = new OutputCollector(5)
    const lines: string[] = []
    await collector.read(streamOf('first\r\nsec', 'ond\nthird'), (line) => lines.push(line))
    expect(lines).toStrictEqual(['first', 'second', 'third'])
    expect(collector.text(false)).toStrictEqual({ text: 'first', truncated: true })
  })

  test('waits for the last line before resolving', async () => {
    const stream = new PassThrough()
    const collector = new OutputCollector(100)
    const lines: string[] = []
    let done = false
    const reading = collector
      .read(stream, (line) => lines.push(line))
      .then(() => {
        done = true
      })
    stream.write('one\n')
    await new Promise((resolve) => setImmediate(resolve))
    expect(done).toBe(false)
    expect(lines).toStrictEqual(['one'])
    stream.end('two')
    await reading
    expect(lines).toStrictEqual(['one', 'two'])
    expect(collector.text(false).text).toBe('one\ntwo')
  })

  test('resolves when its stream fails, keeping what arrived before', async () => {
    const stream = new PassThrough()
    const collector = new OutputCollector(100)
    const reading = collector.read(stream)
    stream.write('before\n')
    await new Promise((resolve) => setImmediate(resolve))
    stream.destroy(new Error('broken pipe'))
    await reading
    expect(collector.text(true)).toStrictEqual({ text: 'before', truncated: false })
  })

  test('resolves on an error even when the stream is not closed after it', async () => {
    const stream = new PassThrough({ emitClose: false })
    const collector = new OutputCollector(100)
    const reading = collector.read(stream)
    stream.emit('error', new Error('read failed'))
    await expect(reading).resolves.toBeUndefined()
  })

  test('pushes the kept part of each chunk, of both streams, to the shared list in arrival order', async () => {
    const shared: string[] = []
    const stdout = new OutputCollector(4, shared)
    const stderr = new OutputCollector(100, shared)
    const out = new PassThrough()
    const err = new PassThrough()
    const reading = Promise.all([stdout.read(out), stderr.read(err)])
    out.write('ab')
    await new Promise((resolve) => setImmediate(resolve))
    err.write('E1')
    await new Promise((resolve) => setImmediate(resolve))
    out.write('cdef')
    await new Promise((resolve) => setImmediate(resolve))
    out.write('g')
    await new Promise((resolve) => setImmediate(resolve))
    err.end('E2')
    out.end()
    await reading
    expect(shared).toStrictEqual(['ab', 'E1', 'cd', 'E2'])
    expect(stdout.text(false)).toStrictEqual({ text: 'abcd', truncated: true })
    expect(stderr.text(false)).toStrictEqual({ text: 'E1E2', truncated: false })
  })
})
