import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { PLANTED_CONFIGURATION_GLOBS } from '../../src/oracle/folder-defaults.ts'
import { restoreProtected } from '../../src/oracle/protect.ts'
import { createExperimentFixture } from '../helpers/experiment-fixture.ts'

describe("a folder task's protected paths", () => {
  test('are restored from starting/ on the copy: changed ones put back, deleted ones brought back, added ones removed', async () => {
    const starting = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-starting-'))
    const copy = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-copy-'))
    await mkdir(path.join(starting, 'data'), { recursive: true })
    await writeFile(path.join(starting, 'data', 'a.csv'), 'id,value\n1,2\n')
    await writeFile(path.join(starting, 'data', 'b.csv'), 'id,value\n3,4\n')
    await mkdir(path.join(copy, 'data'), { recursive: true })
    await writeFile(path.join(copy, 'data', 'a.csv'), '1,2\n')
    await writeFile(path.join(copy, 'data', 'extra.csv'), 'planted\n')
    await writeFile(path.join(copy, 'code.sh'), 'echo fixed\n')
    expect(await restoreProtected(copy, starting, ['data/**'])).toEqual(['data/a.csv', 'data/b.csv', 'data/extra.csv'])
    expect(await readFile(path.join(copy, 'data', 'a.csv'), 'utf8')).toBe('id,value\n1,2\n')
    expect(await readFile(path.join(copy, 'data', 'b.csv'), 'utf8')).toBe('id,value\n3,4\n')
    await expect(readFile(path.join(copy, 'data', 'extra.csv'))).rejects.toThrow()
    expect(await readFile(path.join(copy, 'code.sh'), 'utf8')).toBe('echo fixed\n')
  })
})

describe("a folder task's planted runner configuration (PLANTED_CONFIGURATION_GLOBS)", () => {
  test('is as starting/ has it on the copy: a planted tsconfig, Vitest workspace or project config removed, a changed one put back', async () => {
    const starting = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-starting-'))
    const copy = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-copy-'))
    await writeFile(path.join(starting, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }\n')
    await writeFile(path.join(starting, 'total.ts'), 'export const total = 1\n')
    await mkdir(path.join(copy, 'packages', 'a'), { recursive: true })
    const planted = ['tsconfig.build.json', 'vitest.workspace.ts', 'vitest.unit.config.ts', 'packages/a/vite.e2e.config.mjs', 'packages/a/tsconfig.json', '.nvmrc', '.npmrc']
    for (const file of planted) await writeFile(path.join(copy, file), 'planted\n')
    await writeFile(path.join(copy, 'tsconfig.json'), '{ "compilerOptions": { "strict": false } }\n')
    await writeFile(path.join(copy, 'total.ts'), 'export const total = 2\n')
    expect(await restoreProtected(copy, starting, PLANTED_CONFIGURATION_GLOBS)).toEqual([...planted, 'tsconfig.json'].sort())
    expect(await readFile(path.join(copy, 'tsconfig.json'), 'utf8')).toBe('{ "compilerOptions": { "strict": true } }\n')
    for (const file of planted) await expect(readFile(path.join(copy, file))).rejects.toThrow()
    // Code is the agent's to change.
    expect(await readFile(path.join(copy, 'total.ts'), 'utf8')).toBe('export const total = 2\n')
  })
})

// A hostile `command` agent that makes verify.sh pass by changing the data it
// reads (the base number) instead of the code, through the real path.
describe('data tampering in a folder task with protect', () => {
  test('does not pass verify.sh, while the real fix does', async () => {
    const fixture = await createExperimentFixture(
      [
        {
          id: '001-sum',
          starting: { 'app.sh': 'echo $(( $(cat base.txt) + 1 ))\n', 'base.txt': '1\n' },
          verify: '[ "$(bash app.sh)" = 3 ]',
          solve: "sed -i 's/+ 1/+ 2/' app.sh",
          metadata: { protect: ['base.txt'] },
        },
      ],
      { arms: { gold: { agent: { kind: 'gold' } }, hostile: { agent: { kind: 'command', bin: './tamper.sh' } } }, control: 'gold', seeds: 1 },
    )
    await fixture.writeAgent('tamper.sh', ['echo 2 > base.txt', `echo '{"status":"completed","costUsd":0.01}'`])
    const result = await fixture.vitest()
    expect(result.exitCode, result.all).toBe(0)
    const runs = await fixture.runs()
    expect(runs.find((run) => run.arm === 'hostile')).toMatchObject({ outcome: 'unsolved', oracle: { verifyExit: 1 }, changedFiles: ['base.txt'] })
    expect(runs.find((run) => run.arm === 'gold')).toMatchObject({ outcome: 'solved', oracle: { verifyExit: 0 } })
  })
})
