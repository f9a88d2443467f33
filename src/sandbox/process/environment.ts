import { UNSANDBOXED } from '../probe.ts'
import type { SandboxedCommand } from '../command.ts'

/**
 * Where a process runs, as one interface with two implementations: inside
 * bubblewrap (`RunSandbox` for a run's processes, `isolatedSandbox` for a
 * one-off such as an oracle) or on the host (`UNSANDBOXED_HOST`: an
 * experiment with `sandbox: 'none'`, a version probe, the harness's own
 * `cp` and `git`). "No sandbox" is just another environment, chosen
 * explicitly and labelled as such, never the default of a missing argument.
 */

/** One process to start, with what the sandbox may need to know about it. */
export interface ProcessCommand extends SandboxedCommand {
  /** Harness loopback ports the process reaches at the same 127.0.0.1 port inside (a scripted model server). */
  readonly loopbackPorts?: readonly number[]
  /** More read-only paths for this process only. */
  readonly readOnly?: readonly string[]
  /** More writable folders for this process only. */
  readonly writable?: readonly string[]
  /** False: no network at all, not even the proxy (setup commands, oracles). Default true. */
  readonly network?: boolean
}

/** The command line that starts a process in its environment: what the runner hands to the OS. */
export interface StartLine {
  readonly file: string
  readonly args: readonly string[]
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
}

/** Where a process runs. */
export interface ProcessEnvironment {
  /** What the record calls it (`bubblewrap`, or `none (UNSANDBOXED)`). */
  readonly label: string
  /** The command line that runs `command` here. */
  startLine(command: ProcessCommand): Promise<StartLine>
}

/** The host, unsandboxed: the command runs as it is, with exactly the environment it is given. */
export const UNSANDBOXED_HOST: ProcessEnvironment = {
  label: UNSANDBOXED,
  startLine: (command) => Promise.resolve({ file: command.file, args: [...command.args], cwd: command.cwd, env: { ...command.env } }),
}
