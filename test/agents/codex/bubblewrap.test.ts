import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { codexBubblewrapDir } from '../../../src/agents/codex/bubblewrap.ts'
import { resolveAgentPackage } from '../../../src/agents/packages.ts'

describe('codexBubblewrapDir', () => {
  it.runIf(process.platform === 'linux')(
    `finds the bubblewrap the pinned Codex package ships, which supports --argv0${process.platform === 'linux' ? '' : ' — SKIPPED: bubblewrap is Linux only'}`,
    () => {
      const dir = codexBubblewrapDir(resolveAgentPackage('codex'))
      expect(dir).not.toBeNull()
      const bwrap = path.join(dir!, 'bwrap')
      expect(execFileSync(bwrap, ['--version'], { encoding: 'utf8' })).toMatch(/built for Codex/)
      // The option an older host bubblewrap lacks, without which Codex cannot start its sandbox helper.
      expect(execFileSync(bwrap, ['--help'], { encoding: 'utf8' })).toMatch(/--argv0/)
    },
  )

  it('is null where Codex ships no bubblewrap (off Linux)', () => {
    expect(codexBubblewrapDir(resolveAgentPackage('codex'), 'darwin', 'arm64')).toBeNull()
  })
})
