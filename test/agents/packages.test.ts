import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { AGENT_PACKAGES, missingAgentPackageMessage, requireAgentPackage } from '../../src/agents/packages.ts'
import { repoRoot } from '../helpers/experiment-fixture.ts'

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
  dependencies: Record<string, string>
}

describe('the agent CLIs task-outcome runs', () => {
  test.each(Object.entries(AGENT_PACKAGES))('%s: the tested version is this repository’s devDependency and inside its optional peer range', (_kind, { name, version }) => {
    expect(pkg.devDependencies[name]).toBe(version)
    expect(pkg.peerDependencies[name]).toBe(`^${version}`)
    expect(pkg.peerDependenciesMeta[name]?.optional).toBe(true)
    expect(pkg.dependencies).not.toHaveProperty(name)
  })

  test('a missing package is one line naming the exact package@version to install', () => {
    expect(missingAgentPackageMessage('codex')).toBe('agent "codex" needs @openai/codex, which is not installed: npm install --save-dev @openai/codex@0.171.0')
  })

  test('installed packages pass the check; agents without a package, and claude-code given its own bin, need none', () => {
    for (const kind of Object.keys(AGENT_PACKAGES)) expect(() => requireAgentPackage({ kind: kind as 'codex', bin: undefined })).not.toThrow()
    expect(() => requireAgentPackage({ kind: 'command', bin: './agent.sh' })).not.toThrow()
    expect(() => requireAgentPackage({ kind: 'gold', bin: undefined })).not.toThrow()
  })
})
