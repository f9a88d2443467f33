import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, test } from 'vitest'
import { listFilesCommand, searchCommand } from '../../src/scripted-model/commands.ts'

/**
 * Where the harness makes workspaces when it can: tmpfs, which lists a
 * folder's entries newest first, so two workspaces whose files were written
 * in another order list them differently (ext4 hashes names and would not).
 */
const TMPFS = existsSync('/dev/shm') ? '/dev/shm' : null

/** Two workspaces with the same files, made in opposite orders (so the filesystem lists their entries differently). */
async function twoWorkspaces(): Promise<[string, string]> {
  const files = Array.from({ length: 40 }, (_, i) => `src/${['alpha', 'beta', 'Gamma', '_delta'][i % 4]}/file-${String((i * 7) % 40).padStart(2, '0')}.js`)
  const make = async (order: readonly string[]) => {
    const dir = await mkdtemp(path.join(TMPFS ?? os.tmpdir(), 'task-outcome-listing-'))
    for (const file of order) {
      await mkdir(path.join(dir, path.dirname(file)), { recursive: true })
      await writeFile(path.join(dir, file), `export const value = 'balance'\n// balance ${file}\n`)
    }
    return dir
  }
  return [await make(files), await make([...files].reverse())]
}

const run = (command: string, cwd: string) => execa('bash', ['-c', command], { cwd, env: { LANG: 'en_US.UTF-8' } })

describe("the scripted model's exploration commands give the same output in every workspace", () => {
  test('a search (grep -rn) lists its matches in the same order whatever order the files were made in', async () => {
    const [a, b] = await twoWorkspaces()
    const [first, second] = [(await run(searchCommand('balance'), a)).stdout, (await run(searchCommand('balance'), b)).stdout]
    expect(first.split('\n')).toHaveLength(50)
    expect(first).toBe(second)
    // Without the sort the two differ on tmpfs: the test would catch a command that lost it.
    if (TMPFS === null) return
    const unsorted = (command: string) => command.replace(' | LC_ALL=C sort', '')
    const raw = [(await run(unsorted(searchCommand('balance')), a)).stdout, (await run(unsorted(searchCommand('balance')), b)).stdout]
    expect(raw[0]).not.toBe(raw[1])
  })

  test('a listing (find) is sorted bytewise, not by the locale', async () => {
    const [a, b] = await twoWorkspaces()
    const [first, second] = [(await run(listFilesCommand('.'), a)).stdout, (await run(listFilesCommand('.'), b)).stdout]
    expect(first).toBe(second)
    const lines = first.split('\n')
    expect(lines).toEqual([...lines].sort((x, y) => (Buffer.from(x) < Buffer.from(y) ? -1 : 1)))
  })
})
