import { commandInstallation } from './installation.ts'
import { sandboxCommandLine, type SandboxedCommand } from './command.ts'
import { DEFAULT_LIMITS, RunCgroup, type LimitName, type SandboxLimits } from './limits.ts'
import type { EgressEntry } from './egress.ts'
import { SandboxNetwork } from './network.ts'
import type { MountedOverlay } from './overlay.ts'
import type { ProcessCommand, ProcessEnvironment, StartLine } from './process/environment.ts'
import type { SandboxSpec } from './spec.ts'

/** The PATH bwrap and nsenter are looked up on (the harness's own environment stays out of the sandbox). */
export const SANDBOX_HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/**
 * What a run's sandbox refused, as the record's `sandbox` field carries it.
 * bubblewrap refuses reads and writes without telling anyone (a folder that
 * is not mounted does not exist inside; a read-only one fails with EROFS in
 * the kernel), so those counts are null: not observed, never a made-up zero.
 * Connections go through the harness's proxy, which counts each one it refuses.
 */
export interface SandboxDenials {
  readonly denied: { readonly read: number | null; readonly write: number | null; readonly network: number }
  /** A few of the refused destinations (`CONNECT host:port`), the full list in the run's artifacts. */
  readonly examples: readonly string[]
  /** Every host the run reached through the proxy: connections, bytes up and down, whether it is a model API. */
  readonly egress: readonly EgressEntry[]
}

/** How a run's sandbox is set up. */
export interface RunSandboxOptions {
  /** Hosts the agent may reach through the proxy (`sandbox.allow`). */
  readonly allow: readonly string[]
  /** Folders every process of the run may write (the run's HOME). */
  readonly writable: readonly string[]
  /** Folders every process of the run may write, bound at another path (the run's HOME on its tmpfs). */
  readonly writableMounts?: SandboxSpec['writableMounts']
  /** Extra read-only folders (a prepared dependency folder, a toolchain). */
  readonly readOnly: readonly string[]
  /** The run's overlay workspace. */
  readonly overlay?: MountedOverlay
  /** Folders bound read-only inside the workspace (a prepared dependency folder at `<workspace>/node_modules`). */
  readonly mounts?: SandboxSpec['mounts']
  /** The run's limits (`sandbox.limits`; `DEFAULT_LIMITS` when absent). */
  readonly limits?: SandboxLimits
}

/** One process to run in the sandbox (the runner's `ProcessCommand`). */
export type SandboxProcess = ProcessCommand

/** What `versions.sandbox`-style labels call a bubblewrap environment. */
const BUBBLEWRAP = 'bubblewrap'

/**
 * A run's sandbox: every process of the run (the agent CLI, its tools and
 * hooks, the arm's setup commands) is started through `commandLine`, inside
 * the run's overlay workspace and network, with the CLI's own installation
 * mounted read-only. One per run; `close()` when the run ends.
 */
export class RunSandbox implements ProcessEnvironment {
  readonly label = BUBBLEWRAP

  readonly #options: RunSandboxOptions
  readonly #network: SandboxNetwork
  readonly #cgroup: RunCgroup | null

  private constructor(options: RunSandboxOptions, network: SandboxNetwork, cgroup: RunCgroup | null) {
    this.#options = options
    this.#network = network
    this.#cgroup = cgroup
  }

  /** Opens a run's sandbox (starts its proxy, makes its cgroup where the machine allows one). */
  static async open(options: RunSandboxOptions): Promise<RunSandbox> {
    const network = await SandboxNetwork.start(options.allow)
    return new RunSandbox(options, network, RunCgroup.create(options.limits ?? DEFAULT_LIMITS))
  }

  /** How the run's processes and memory are limited: a cgroup (`v2`, `v1`), or rlimits inside each sandbox. */
  get limitedBy(): 'cgroup v2' | 'cgroup v1' | 'rlimits' {
    return this.#cgroup === null ? 'rlimits' : this.#cgroup.kind === 'v2' ? 'cgroup v2' : 'cgroup v1'
  }

  /**
   * The limit the run reached, if any: an out-of-memory kill or the process
   * limit in its cgroup, or its workspace's tmpfs full. Read after the agent
   * (and before the overlay is released).
   */
  limitHit(): LimitName | null {
    return this.#cgroup?.hit() ?? (this.#options.overlay?.diskFull() === true ? 'disk' : null)
  }

  /** The overlay the run's processes enter, if any. */
  get overlay(): MountedOverlay | undefined {
    return this.#options.overlay
  }

  /** The command line that runs `command` inside the run's sandbox (starting its port forwarders first). */
  async commandLine(command: SandboxProcess): Promise<{ file: string; args: string[]; env: Record<string, string> }> {
    const withNetwork = command.network !== false
    const env = withNetwork ? { ...command.env, ...this.#network.env } : { ...command.env }
    const spec: SandboxSpec = {
      writable: [...this.#options.writable, ...(command.writable ?? [])],
      ...(this.#options.writableMounts === undefined ? {} : { writableMounts: this.#options.writableMounts }),
      readOnly: [...this.#options.readOnly, ...(command.readOnly ?? []), ...commandInstallation(command.file, command.args)],
      ...(this.#options.overlay === undefined ? {} : { overlay: { pid: this.#options.overlay.pid, target: this.#options.overlay.layers.target } }),
      ...(this.#options.mounts === undefined ? {} : { mounts: this.#options.mounts }),
      network: withNetwork ? await this.#network.spec(command.loopbackPorts ?? []) : 'none',
      limits: this.#options.limits ?? DEFAULT_LIMITS,
      ...(this.#cgroup === null ? {} : { cgroup: this.#cgroup.join }),
    }
    return { ...sandboxCommandLine(spec, { ...command, env }), env: { PATH: SANDBOX_HOST_PATH } }
  }

  /** The runner's view: `commandLine`, started from `/` (the process's own working directory is set inside). */
  async startLine(command: ProcessCommand): Promise<StartLine> {
    return { ...(await this.commandLine(command)), cwd: '/' }
  }

  /** What the sandbox refused so far. */
  get denials(): SandboxDenials {
    const network = this.#network.denials
    return { denied: { read: null, write: null, network: network.count }, examples: network.examples, egress: this.#network.egress }
  }

  /** Stops the network and removes the cgroup (the overlay belongs to the workspace). */
  async close(): Promise<void> {
    await this.#network.close()
    this.#cgroup?.release()
  }
}

/**
 * A one-off sandbox without a run (an oracle's test command, a version probe):
 * no network, the given folders writable and read-only, optionally inside an overlay.
 */
export function isolatedCommandLine(spec: Omit<SandboxSpec, 'network'>, command: SandboxedCommand): { file: string; args: string[] } {
  return sandboxCommandLine({ ...spec, readOnly: [...spec.readOnly, ...commandInstallation(command.file, command.args)], network: 'none' }, command)
}

/**
 * A one-off sandbox as a process environment (an oracle's test command,
 * `verify.sh`, a dependency preparation): `isolatedCommandLine` for every
 * process started in it, from `/`, with only the host PATH bwrap is found on.
 */
export function isolatedSandbox(spec: Omit<SandboxSpec, 'network'>): ProcessEnvironment {
  return {
    label: BUBBLEWRAP,
    startLine: (command) => Promise.resolve({ ...isolatedCommandLine(spec, command), cwd: '/', env: { PATH: SANDBOX_HOST_PATH } }),
  }
}
