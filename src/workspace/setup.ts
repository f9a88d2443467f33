import { cp, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { HarnessFailure, SpecError } from '../errors.ts'
import type { ArmSetup } from '../experiment/schema.ts'
import { runProcess, UNSANDBOXED_HOST, type RunSandbox } from '../sandbox/index.ts'

/** What arm setup needs besides the arm's own spec. */
export interface ArmSetupContext {
  /** The workspace to set up. */
  readonly workspace: string
  /** The experiment file's folder: arm file sources are relative to it. */
  readonly experimentDir: string
  /** The agent's environment: setup commands run with it. */
  readonly env: Readonly<Record<string, string>>
  /** Limit for each setup command. */
  readonly timeoutMs: number
  /** The run's sandbox: setup commands run inside it, in the workspace as the agent sees it (`agentWorkspace`). */
  readonly sandbox?: RunSandbox
  /** The workspace's path inside the sandbox (default `workspace`). */
  readonly agentWorkspace?: string
}

/** Resolves a workspace-relative destination, refusing one that escapes the workspace. */
function insideWorkspace(workspace: string, destination: string, arm: string): string {
  const resolved = path.resolve(workspace, destination)
  if (resolved !== workspace && !resolved.startsWith(workspace + path.sep)) {
    throw new SpecError(`arms.${arm}.setup.files: "${destination}" points outside the workspace`)
  }
  return resolved
}

/**
 * Applies an arm's setup to a fresh workspace: copies its files in, then runs
 * its commands in order (inside the run's sandbox, like the agent). A failing command is a harness failure: the arm is
 * not what it claims to be, so the run would measure nothing.
 */
export async function applyArmSetup(arm: string, setup: ArmSetup, context: ArmSetupContext): Promise<void> {
  for (const [destination, source] of Object.entries(setup.files)) {
    const target = insideWorkspace(context.workspace, destination, arm)
    await mkdir(path.dirname(target), { recursive: true })
    await cp(path.resolve(context.experimentDir, source), target, { recursive: true })
  }
  for (const command of setup.commands) {
    const result = await runProcess(
      { file: context.sandbox === undefined ? 'bash' : '/bin/bash', args: ['-c', command] },
      {
        cwd: context.sandbox === undefined ? context.workspace : (context.agentWorkspace ?? context.workspace),
        env: context.env,
        timeoutMs: context.timeoutMs,
        sandbox: context.sandbox ?? UNSANDBOXED_HOST,
      },
    )
    if (result.exitCode !== 0 || result.timedOut) {
      throw new HarnessFailure('setup', `arm ${arm}: setup command \`${command}\` ${result.timedOut ? 'timed out' : `exited ${result.exitCode}`}: ${result.all.slice(-1500)}`)
    }
  }
}
