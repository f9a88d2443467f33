import type { SandboxLimits } from './limits.ts'

/**
 * What one sandboxed process may see and reach. Everything not named here is
 * absent inside: the sandbox starts from an empty root.
 */
export interface SandboxSpec {
  /** Folders bound read-write at the same path (the run's HOME, scratch output folders). */
  readonly writable: readonly string[]
  /**
   * Folders bound read-write at another path: the run's HOME on its tmpfs, `source` as bubblewrap finds it (in
   * the overlay holder's namespace), `onHost` the same folder as the harness reaches it (handed to the sandbox uid).
   */
  readonly writableMounts?: ReadonlyArray<{ readonly source: string; readonly target: string; readonly onHost: string }>
  /** Files or folders bound read-only at the same path (the agent CLI's installation, a toolchain, a dependency folder). Missing ones are skipped. */
  readonly readOnly: readonly string[]
  /** The run's overlay workspace: the process enters its holder's namespaces, and its mount point is bound read-write. */
  readonly overlay?: { readonly pid: number; readonly target: string }
  /**
   * Folders bound read-only at another path, after every other bind, so they
   * may lie inside a writable one (a prepared `node_modules` at
   * `<workspace>/node_modules`). The target must exist (an empty folder).
   */
  readonly mounts?: ReadonlyArray<{ readonly source: string; readonly target: string }>
  /**
   * Network: `none` is a network namespace with loopback only; otherwise the
   * listed loopback ports are forwarded to the harness's, and the allowlisting
   * proxy is reachable (through `HTTPS_PROXY`), over Unix sockets in `socketDir`.
   */
  readonly network: 'none' | SandboxNetworkSpec
  /** The run's limits (`DEFAULT_LIMITS` when absent): tmpfs sizes, and rlimits when there is no cgroup. */
  readonly limits?: SandboxLimits
  /** The `cgroup.procs` files of the run's cgroup, joined before bubblewrap starts (`RunCgroup.join`). */
  readonly cgroup?: readonly string[]
}

/** The network part of a `SandboxSpec`. */
export interface SandboxNetworkSpec {
  /** The folder holding one Unix socket per forwarded port (`<port>.sock`) and `proxy.sock`. */
  readonly socketDir: string
  /** 127.0.0.1 ports inside that reach the same ports of the harness (the scripted model server). */
  readonly loopbackPorts: readonly number[]
  /** The proxy's port on 127.0.0.1 inside (`HTTPS_PROXY=http://127.0.0.1:<port>`). */
  readonly proxyPort: number
}
