import { access, mkdir, mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { cleanPath, resolveOracleToolchain } from '../../src/oracle/toolchain.ts'
import { createExperimentFixture } from '../helpers/experiment-fixture.ts'

describe("the oracle's toolchain", () => {
  test('PATH entries inside the project, relative ones and any node_modules/.bin are dropped', async () => {
    const project = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-project-'))
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-elsewhere-'))
    await mkdir(path.join(project, 'node_modules', '.bin'), { recursive: true })
    await mkdir(path.join(elsewhere, 'node_modules', '.bin'), { recursive: true })
    const host = [path.join(project, 'node_modules', '.bin'), 'relative/bin', path.join(elsewhere, 'node_modules', '.bin'), '/usr/bin', '/bin'].join(':')
    expect(cleanPath(host, [project])).toEqual(['/usr/bin', '/bin'])
  })

  test("node is the harness's own, bash and python3 absolute, and the PATH finds them first", async () => {
    const toolchain = await resolveOracleToolchain(process.env.PATH, [])
    expect(toolchain.binaries.node).toBe(await import('node:fs').then((fs) => fs.realpathSync(process.execPath)))
    for (const file of Object.values(toolchain.binaries)) expect(path.isAbsolute(file)).toBe(true)
    expect(toolchain.path.split(':')[0]).toBe(path.dirname(toolchain.binaries.node!))
    expect(toolchain.label).toMatch(new RegExp(`^node ${process.version.replace(/\./g, '\\.')} /\\S+; (python3 \\S+ /\\S+; )?bash \\S+ /\\S+$`))
  })
})

// A hostile `command` agent that plants a `node` on the harness's PATH, where
// `npx` puts the project's node_modules/.bin, hoping the oracle runs it. The
// experiment runs with `sandbox: 'none'` so the folder is within its reach.
describe('a node shim planted on the PATH during the run', () => {
  test('never runs in the oracle: the run is unsolved and its record names the real node', async () => {
    const fixture = await createExperimentFixture(
      [{ id: '001-port', starting: { 'port.txt': '0\n' }, verify: `node -e "process.exit(require('fs').readFileSync('port.txt', 'utf8').trim() === '8080' ? 0 : 1)"` }],
      { arms: { noop: {}, hostile: { agent: { kind: 'command', bin: './plant.sh' } } }, control: 'noop', seeds: 1, sandbox: 'none' },
    )
    const bin = path.join(fixture.root, 'node_modules', '.bin')
    const ran = path.join(fixture.root, 'shim-ran')
    await mkdir(bin, { recursive: true })
    await fixture.writeAgent('plant.sh', [`printf '#!/bin/sh\\ntouch ${ran}\\nexit 0\\n' > ${bin}/node`, `chmod +x ${bin}/node`, `echo '{"status":"completed","costUsd":0.01}'`])
    const result = await fixture.vitest(['-t', 'hostile'], { env: { PATH: `${bin}:${process.env.PATH}` } })
    expect(result.exitCode, result.all).toBe(0)
    const [record] = await fixture.runs()
    expect(record).toMatchObject({ arm: 'hostile', outcome: 'unsolved', oracle: { verifyExit: 1 } })
    expect((record!.versions as { toolchain: string }).toolchain).toContain(`node ${process.version} /`)
    expect((record!.versions as { toolchain: string }).toolchain).not.toContain(bin)
    await expect(access(ran)).rejects.toThrow()
  })
})
