import { execa } from 'execa'
import { SpecError } from '../errors.ts'

/** The sandbox every agent and oracle process runs in, as recorded in `versions.sandbox`. */
export interface SandboxInfo {
  readonly name: 'bubblewrap'
  /** `bwrap --version`'s number, e.g. `0.8.0`. */
  readonly version: string
}

/** `versions.sandbox` of every record made without a sandbox (`sandbox: 'none'`). */
export const UNSANDBOXED = 'none (UNSANDBOXED)'

/** What a machine without a working sandbox must install (Debian/Ubuntu package names). */
export const SANDBOX_INSTALL = 'sudo apt-get install bubblewrap socat'

/**
 * No working sandbox on this machine: bubblewrap, socat or unprivileged user
 * namespaces are missing. One line saying what to install, or how to run
 * UNSANDBOXED on purpose.
 */
export class SandboxUnavailable extends SpecError {}

/** `versions.sandbox` for a probed sandbox, e.g. `bubblewrap 0.8.0`. */
export function sandboxLabel(info: SandboxInfo): string {
  return `${info.name} ${info.version}`
}

function unavailable(what: string): SandboxUnavailable {
  return new SandboxUnavailable(
    `no working sandbox: ${what}. Install it (${SANDBOX_INSTALL}), or set the experiment's sandbox: 'none' to run every agent UNSANDBOXED (every record and report then says so)`,
  )
}

async function tryRun(file: string, args: readonly string[]): Promise<{ ok: boolean; out: string; missing: boolean }> {
  const result = await execa(file, [...args], { reject: false, stdin: 'ignore', all: true, timeout: 10_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, extendEnv: false })
  const missing = (result as { code?: string }).code === 'ENOENT' || /ENOENT/.test(String(result.originalMessage ?? ''))
  return { ok: result.exitCode === 0, out: String(result.all ?? result.originalMessage ?? '').trim(), missing }
}

/**
 * Probes the machine's sandbox once: bubblewrap's version, then a real trial
 * of everything a run needs (a user, mount, PID, IPC and network namespace
 * from bwrap; a user+mount namespace with an overlay from unshare; socat).
 * Throws `SandboxUnavailable` naming what is missing.
 */
export async function probeSandbox(): Promise<SandboxInfo> {
  return (probed ??= probe())
}
let probed: Promise<SandboxInfo> | undefined

async function probe(): Promise<SandboxInfo> {
  if (process.platform !== 'linux') throw unavailable(`task-outcome sandboxes agents with bubblewrap on Linux only (this is ${process.platform})`)
  const version = await tryRun('bwrap', ['--version'])
  if (version.missing) throw unavailable('bubblewrap (bwrap) is not installed')
  const number = /(\d+\.\d+(?:\.\d+)?)/.exec(version.out)?.[1]
  if (!version.ok || number === undefined) throw unavailable(`\`bwrap --version\` failed: ${version.out.split('\n')[0]}`)
  const trial = await tryRun('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--die-with-parent', '--new-session', '--dev', '/dev', '--proc', '/proc', 'true'])
  if (!trial.ok) throw unavailable(`bubblewrap cannot make namespaces here (unprivileged user namespaces disabled?): ${trial.out.split('\n')[0]}`)
  const socat = await tryRun('socat', ['-V'])
  if (socat.missing) throw unavailable("socat (the sandbox's network bridge) is not installed")
  const userns = await tryRun('unshare', ['--user', '--map-root-user', '--mount', 'true'])
  if (!userns.ok) throw unavailable(`\`unshare --user --map-root-user --mount\` fails (the workspace overlay needs it): ${userns.out.split('\n')[0]}`)
  return { name: 'bubblewrap', version: number }
}

/** Forgets the probe (tests that change PATH). */
export function resetSandboxProbe(): void {
  probed = undefined
}
