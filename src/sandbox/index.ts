/**
 * The OS sandbox every agent and oracle process runs in (bubblewrap on
 * Linux): its own user, mount, PID, IPC and network namespaces, the run's
 * overlay workspace, a network allowlist, and what it refused.
 */
export { probeSandbox, resetSandboxProbe, sandboxLabel, SandboxUnavailable, SANDBOX_INSTALL, UNSANDBOXED, type SandboxInfo } from './probe.ts'
export { handOverWrites, mountOverlay, mountPlainCopy, type MountedOverlay, type OverlayLayers, type OverlayOptions } from './overlay.ts'
export { RunSandbox, isolatedCommandLine, isolatedSandbox, SANDBOX_HOST_PATH, type RunSandboxOptions, type SandboxDenials, type SandboxProcess } from './sandbox.ts'
export { sandboxCommandLine, SYSTEM_READ_ONLY, type SandboxedCommand } from './command.ts'
export { SandboxNetwork, allowedBy, PROXY_PORT } from './network.ts'
export { commandInstallation, packageClosure } from './installation.ts'
export type { SandboxSpec, SandboxNetworkSpec } from './spec.ts'
export { toolchainMounts } from './toolchain.ts'
export { runProcess, type ProcessFile, type ProcessResult, type RunProcessOptions } from './process/run-process.ts'
export { UNSANDBOXED_HOST, type ProcessCommand, type ProcessEnvironment, type StartLine } from './process/environment.ts'
export { RUN_TAG_VARIABLE, SESSION_VARIABLE } from './process/tags.ts'
export { liveRunProcesses, processGroupAlive } from './process/tree.ts'
export { killProcessGroup, DEFAULT_KILL_GRACE_MS } from './process/terminate/index.ts'
export { startDaemon } from './process/daemon.ts'
export { MeteringGateway, type GatewayExchange, type GatewayOptions } from './gateway.ts'
export type { ResponseTokens, ResponseUsage } from './usage-reader.ts'
export { DEFAULT_SANDBOX_UID, handOver, sandboxIdentity, type SandboxIdentity } from './identity.ts'
export { DENIED_SYSCALLS, seccompFilterFile } from './seccomp.ts'
export { DEFAULT_LIMITS, RunCgroup, type LimitName, type SandboxLimits } from './limits.ts'
export { EgressLedger, knownModelHost, modelApiPath, type EgressEntry } from './egress.ts'
