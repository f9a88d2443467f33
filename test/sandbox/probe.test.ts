import { mkdtemp, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { probeSandbox, resetSandboxProbe, SandboxUnavailable } from '../../src/sandbox/index.ts'
import { hostileProject } from './hostile-agent.ts'

const savedPath = process.env.PATH
afterEach(() => {
  process.env.PATH = savedPath
  resetSandboxProbe()
})

describe('the sandbox probe', () => {
  test('names bubblewrap and its version on a machine that has it', async () => {
    expect(await probeSandbox()).toEqual({ name: 'bubblewrap', version: expect.stringMatching(/^\d+\.\d+/) })
  })

  test('without bubblewrap, refuses in one line naming the Debian package to install and the way to run UNSANDBOXED', async () => {
    // A PATH with socat and unshare but no bwrap, the way a machine without the package looks.
    const bin = await mkdtemp(path.join(os.tmpdir(), 'no-bwrap-'))
    for (const tool of ['socat', 'unshare', 'sh']) await symlink(`/usr/bin/${tool}`, path.join(bin, tool)).catch(() => symlink(`/bin/${tool}`, path.join(bin, tool)))
    process.env.PATH = bin
    resetSandboxProbe()
    const refusal = await probeSandbox().catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(SandboxUnavailable)
    const message = (refusal as Error).message
    expect(message.split('\n')).toHaveLength(1)
    expect(message).toContain('apt-get install bubblewrap')
    expect(message).toContain("sandbox: 'none'")
  })

  test("without bubblewrap, a run stops before its agent starts; with sandbox: 'none' it runs and its record says UNSANDBOXED", async () => {
    const refused = await hostileProject('echo right > value.txt; echo ran > "$HOME/ran"')
    const unsandboxed = await hostileProject('echo right > value.txt', { sandbox: 'none' })
    const bin = await mkdtemp(path.join(os.tmpdir(), 'no-bwrap-'))
    process.env.PATH = bin
    resetSandboxProbe()
    await expect(refused.run()).rejects.toThrow(/apt-get install bubblewrap/)
    process.env.PATH = savedPath
    const { record } = await unsandboxed.run()
    expect(record.versions.sandbox).toBe('none (UNSANDBOXED)')
    expect(record.sandbox).toBeNull()
    expect(record.solved).toBe(true)
  })
})
