import { spawn } from 'node:child_process'

/**
 * Starts a harness process meant to outlive the one that starts it (the
 * invocation's watchdog): on the host, detached in a session of its own,
 * stdio closed, not waited for, with exactly the environment given. Not for
 * anything a run does: those go through `runProcess`, whose policy is that
 * nothing outlives its leader.
 */
export function startDaemon(file: string, args: readonly string[], env: Readonly<Record<string, string | undefined>>): void {
  const daemon = spawn(file, [...args], { detached: true, stdio: 'ignore', env: { ...env } })
  daemon.unref()
}
