import { accessSync, constants } from 'node:fs'
import path from 'node:path'

/** Host variables every agent process gets: locale and terminal basics, nothing that carries credentials. */
export const BASE_ENV_NAMES = ['LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM'] as const

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The host PATH without the directories that hold any of `executables` (the
 * tool under test), so a host install cannot leak into the control arm.
 */
export function cleanPath(hostPath: string, executables: readonly string[]): string {
  return hostPath
    .split(path.delimiter)
    .filter((dir) => dir !== '' && !executables.some((name) => isExecutable(path.join(dir, name))))
    .join(path.delimiter)
}

/** What the agent's environment is built from. */
export interface AgentEnvInput {
  /** The host environment (normally `process.env`). */
  readonly host: Readonly<Record<string, string | undefined>>
  /** Host variables the experiment passes through by name (e.g. `ANTHROPIC_API_KEY`). */
  readonly pass: readonly string[]
  /** Variables the experiment fixes. */
  readonly set: Readonly<Record<string, string>>
  /** Variables the arm sets (win over the experiment's). */
  readonly armEnv: Readonly<Record<string, string>>
  /** Absolute directories the arm puts first on PATH. */
  readonly armPath: readonly string[]
  /** Executables whose host directories are removed from PATH. */
  readonly cleanPath: readonly string[]
  /** The run's own HOME. */
  readonly home: string
}

/**
 * The agent's whole environment, as an allowlist: locale basics, the variables
 * the experiment names, the arm's, a cleaned PATH and a HOME of its own.
 * Nothing else from the host reaches the agent.
 */
export function buildAgentEnv(input: AgentEnvInput): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of [...BASE_ENV_NAMES, ...input.pass]) {
    const value = input.host[name]
    if (value !== undefined) env[name] = value
  }
  Object.assign(env, input.set, input.armEnv)
  const hostPath = cleanPath(input.host.PATH ?? '/usr/local/bin:/usr/bin:/bin', input.cleanPath)
  env.PATH = [...input.armPath, hostPath].filter((part) => part !== '').join(path.delimiter)
  env.HOME = input.home
  return env
}
