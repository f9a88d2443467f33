import { execa } from 'execa'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, test } from 'vitest'
import { writeFileAtomic } from '../../src/shared/atomic-write.ts'

const MODULE = pathToFileURL(path.resolve(import.meta.dirname, '../../src/shared/atomic-write.ts')).href

describe('the atomic write', () => {
  test('makes the folder, leaves the whole text and no temporary file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-atomic-'))
    const file = path.join(dir, 'a', 'b', 'note.json')
    writeFileAtomic(file, '{"one":1}')
    writeFileAtomic(file, '{"two":2}')
    expect(readFileSync(file, 'utf8')).toBe('{"two":2}')
    expect(readdirSync(path.dirname(file))).toEqual(['note.json'])
  })

  test('two processes writing one file at once: every read sees one whole version, neither writer fails', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-atomic-'))
    const file = path.join(dir, 'entry.json')
    // Each writer writes its own large JSON many times; with one temporary name shared by both, one writer's
    // rename would publish the other's half-written file or find its own temporary file gone (ENOENT).
    const writer = (id: number) =>
      execa(
        process.execPath,
        [
          '--experimental-strip-types',
          '--no-warnings',
          '--input-type=module',
          '-e',
          `const { writeFileAtomic } = await import(${JSON.stringify(MODULE)}); const text = JSON.stringify({ id: ${id}, pad: 'x'.repeat(200000) }); for (let i = 0; i < 300; i++) writeFileAtomic(${JSON.stringify(file)}, text)`,
        ],
        { reject: false },
      )
    const writers = [writer(1), writer(2)]
    let reads = 0
    let done = false
    void Promise.all(writers).then(() => (done = true))
    while (!done) {
      if (existsSync(file)) {
        const text = readFileSync(file, 'utf8')
        expect(() => JSON.parse(text), `read ${reads}`).not.toThrow()
        reads++
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
    for (const result of await Promise.all(writers)) expect(result.exitCode, result.stderr).toBe(0)
    expect(reads).toBeGreaterThan(0)
    expect([1, 2]).toContain((JSON.parse(readFileSync(file, 'utf8')) as { id: number }).id)
    expect(readdirSync(dir)).toEqual(['entry.json'])
  })
})
