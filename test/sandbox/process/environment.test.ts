import { describe, expect, test } from 'vitest'
import { type ProcessCommand, UNSANDBOXED_HOST } from '../../../src/sandbox/process/environment.ts'

// The host as a process environment: "no sandbox" is labelled as such, and runs the command exactly as given.

describe('the unsandboxed host', () => {
  test('is labelled "none (UNSANDBOXED)" in the record', () => {
    expect(UNSANDBOXED_HOST.label).toBe('none (UNSANDBOXED)')
  })

  test('starts the command as it is, with exactly the environment it is given', async () => {
    const command: ProcessCommand = {
      file: '/usr/bin/git',
      args: ['status', '--short'],
      cwd: '/tmp/work',
      env: { PATH: '/usr/bin', HOME: '/tmp/home' },
      loopbackPorts: [8080],
      readOnly: ['/opt/tool'],
      writable: ['/tmp/out'],
      network: false,
    }
    expect(await UNSANDBOXED_HOST.startLine(command)).toStrictEqual({
      file: '/usr/bin/git',
      args: ['status', '--short'],
      cwd: '/tmp/work',
      env: { PATH: '/usr/bin', HOME: '/tmp/home' },
    })
  })

  test('hands over copies of the arguments and the environment, not the command’s own', async () => {
    const command: ProcessCommand = { file: 'true', args: ['a'], cwd: '/', env: { A: '1' } }
    const line = await UNSANDBOXED_HOST.startLine(command)
    expect(line.args).not.toBe(command.args)
    expect(line.env).not.toBe(command.env)
  })
})
