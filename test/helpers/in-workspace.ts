import { execa } from 'execa'
import { isolatedCommandLine, SANDBOX_HOST_PATH } from '../../src/sandbox/index.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'

/**
 * Runs a command in a workspace the way the agent would see it: inside the
 * sandbox, in the workspace's overlay (a plain copy is bound instead). Git in
 * particular must run there: on the host the overlay is reachable only
 * through its holder's /proc root, where git cannot find its repository.
 */
export async function inWorkspace(workspace: Workspace, file: string, args: readonly string[]): Promise<string> {
  const overlay = workspace.overlay
  const line = isolatedCommandLine(
    {
      writable: overlay === undefined ? [workspace.agentDir] : [],
      readOnly: [],
      ...(overlay === undefined ? {} : { overlay: { pid: overlay.pid, target: overlay.layers.target } }),
    },
    { file, args, cwd: workspace.agentDir, env: { PATH: '/usr/bin:/bin', HOME: '/tmp', GIT_CONFIG_GLOBAL: '/dev/null' } },
  )
  const result = await execa(line.file, line.args, { env: { PATH: SANDBOX_HOST_PATH }, extendEnv: false, reject: false })
  if (result.exitCode !== 0) throw new Error(`${file} ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`)
  return result.stdout
}

/** `git <args>` in the workspace, as the agent would run it. */
export function gitIn(workspace: Workspace, args: readonly string[]): Promise<string> {
  return inWorkspace(workspace, '/usr/bin/git', args)
}
