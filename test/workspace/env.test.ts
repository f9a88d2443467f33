import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { buildAgentEnv, cleanPath } from '../../src/workspace/env.ts'

describe("the agent's environment", () => {
  test("is an allowlist: only locale basics, named variables, the arm's, PATH and its own HOME", () => {
    const env = buildAgentEnv({
      host: { LANG: 'C.UTF-8', SECRET_TOKEN: 'x', ANTHROPIC_API_KEY: 'k', PATH: '/usr/bin', HOME: '/root' },
      pass: ['ANTHROPIC_API_KEY'],
      set: { FIXED: '1' },
      armEnv: { FIXED: '2', ARM: 'yes' },
      armPath: ['/opt/tool/bin'],
      cleanPath: [],
      home: '/tmp/run-home',
    })
    expect(env).toEqual({ LANG: 'C.UTF-8', ANTHROPIC_API_KEY: 'k', FIXED: '2', ARM: 'yes', PATH: '/opt/tool/bin:/usr/bin', HOME: '/tmp/run-home' })
  })

  test('PATH loses every directory holding the tool under test', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-env-'))
    for (const dir of ['host-tool', 'other']) await mkdir(path.join(root, dir))
    await writeFile(path.join(root, 'host-tool', 'neuralmind'), '#!/bin/sh\n')
    await chmod(path.join(root, 'host-tool', 'neuralmind'), 0o755)
    const hostPath = [path.join(root, 'host-tool'), path.join(root, 'other'), '/usr/bin'].join(':')
    expect(cleanPath(hostPath, ['neuralmind'])).toBe([path.join(root, 'other'), '/usr/bin'].join(':'))
  })
})
