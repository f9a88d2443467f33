import { createRequire } from 'node:module'
import { SpecError } from '../errors.ts'
import type { AgentSpec } from '../experiment/schema.ts'

/**
 * The npm package each CLI agent runs, at the version task-outcome is tested
 * with. They are optional peer dependencies: a project installs only the
 * agents its experiments use (this repository keeps all four as
 * devDependencies; a test checks these versions against package.json).
 */
export const AGENT_PACKAGES = {
  'claude-code': { name: '@anthropic-ai/claude-code', version: '2.1.197', entry: '@anthropic-ai/claude-code/package.json' },
  codex: { name: '@openai/codex', version: '0.171.0', entry: '@openai/codex/bin/codex.js' },
  gemini: { name: '@google/gemini-cli', version: '0.61.0', entry: '@google/gemini-cli/bundle/gemini.js' },
  cursor: { name: '@cursor/sdk', version: '1.0.31', entry: '@cursor/sdk' },
} as const satisfies Record<string, { readonly name: string; readonly version: string; readonly entry: string }>

/** An agent kind that runs an npm package. */
export type PackagedAgentKind = keyof typeof AGENT_PACKAGES

function isPackaged(kind: string): kind is PackagedAgentKind {
  return Object.hasOwn(AGENT_PACKAGES, kind)
}

/** The one line that says which package to install for an agent kind. */
export function missingAgentPackageMessage(kind: PackagedAgentKind): string {
  const { name, version } = AGENT_PACKAGES[kind]
  return `agent "${kind}" needs ${name}, which is not installed: npm install --save-dev ${name}@${version}`
}

/**
 * Resolves the file of the agent's package that its adapter runs or reads
 * (`entry`), from the project's `node_modules`. A missing package is a
 * `SpecError` whose message names the exact package@version to install.
 */
export function resolveAgentPackage(kind: PackagedAgentKind): string {
  try {
    return createRequire(import.meta.url).resolve(AGENT_PACKAGES[kind].entry)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') {
      throw new SpecError(missingAgentPackageMessage(kind))
    }
    throw error
  }
}

/**
 * Checks, before any run, that the package an agent spec runs is installed
 * (a `claude-code` agent given its own `bin` needs none). Throws the
 * one-line `SpecError` of `resolveAgentPackage`.
 */
export function requireAgentPackage(spec: Pick<AgentSpec, 'kind' | 'bin'>): void {
  if (!isPackaged(spec.kind)) return
  if (spec.kind === 'claude-code' && spec.bin !== undefined) return
  resolveAgentPackage(spec.kind)
}
