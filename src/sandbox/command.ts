import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs'
import path from 'node:path'
import type { SandboxSpec } from './spec.ts'

/**
 * The bubblewrap command line of one sandboxed process: its own user, mount,
 * PID, IPC, UTS, cgroup and network namespaces; a fresh session (no terminal
 * to inject keystrokes into); killed with its whole PID namespace when the
 * harness dies (`--die-with-parent`) or when its main process ends (bwrap's
 * PID 1 leaves, and the kernel kills everything else in the namespace); the
 * environment cleared and set to exactly what the caller passes; the system
 * folders read-only, `/tmp` and `/dev/shm` fresh tmpfs, and of the rest of
 * the machine only what the spec names.
 */

/** System folders every sandboxed process sees read-only (those that exist). */
export const SYSTEM_READ_ONLY = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt']

/** The proxy's Unix socket in the socket folder (forwarded ports have `<port>.sock`). */
export const PROXY_SOCKET = 'proxy.sock'

/** Where the network sockets appear inside. */
export const SANDBOX_SOCKET_DIR = '/run/task-outcome-net'

function systemMounts(): string[] {
  const args: string[] = []
  for (const dir of SYSTEM_READ_ONLY) {
    if (!existsSync(dir)) continue
    const info = lstatSync(dir)
    // Merged-/usr systems: /bin → usr/bin is a symbolic link; keep it one.
    if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir)
    else args.push('--ro-bind', dir, dir)
  }
  return args
}

/** The sh script that starts the network bridges inside, waits until they listen, then execs the command. */
function bridgeScript(bridges: ReadonlyArray<{ readonly port: number; readonly socket: string }>): string {
  const lines = bridges.map(
    ({ port, socket }) => `socat TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SANDBOX_SOCKET_DIR}/${socket} 2>/dev/null &`,
  )
  const hex = bridges.map(({ port }) => port.toString(16).toUpperCase().padStart(4, '0'))
  const wait = hex.map((h) => `i=0; until grep -q ':${h} 00000000:0000 0A' /proc/net/tcp; do i=$((i+1)); [ $i -gt 500 ] && break; sleep 0.01; done`)
  return [...lines, ...wait, 'exec "$@"'].join('\n')
}

/** A command to run, as the caller gives it. */
export interface SandboxedCommand {
  readonly file: string
  readonly args: readonly string[]
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
}

/** The command line that runs `command` inside the sandbox `spec` describes. */
export function sandboxCommandLine(spec: SandboxSpec, command: SandboxedCommand): { file: string; args: string[] } {
  const bwrap: string[] = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--uid',
    String(process.getuid?.() ?? 0),
    '--gid',
    String(process.getgid?.() ?? 0),
    '--hostname',
    'sandbox',
    ...systemMounts(),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/dev/shm',
    '--tmpfs',
    '/run',
  ]
  const bound = new Set<string>()
  for (const dir of spec.readOnly) {
    if (!existsSync(dir) || bound.has(dir)) continue
    bound.add(dir)
    bwrap.push('--ro-bind', dir, dir)
  }
  for (const dir of spec.writable) {
    if (bound.has(dir)) continue
    bound.add(dir)
    bwrap.push('--bind', dir, dir)
  }
  if (spec.overlay !== undefined) bwrap.push('--bind', spec.overlay.target, spec.overlay.target)
  for (const mount of spec.mounts ?? []) bwrap.push('--ro-bind', mount.source, mount.target)
  // Order matters: bwrap applies --clearenv and --setenv as it reads them.
  bwrap.push('--clearenv')
  for (const [name, value] of Object.entries(command.env)) bwrap.push('--setenv', name, value)
  bwrap.push('--chdir', command.cwd)
  const file = path.isAbsolute(command.file) && existsSync(command.file) ? realpathSync(command.file) : command.file
  if (spec.network !== 'none') {
    bwrap.push('--ro-bind', spec.network.socketDir, SANDBOX_SOCKET_DIR)
    const bridges = [
      ...spec.network.loopbackPorts.map((port) => ({ port, socket: `${port}.sock` })),
      { port: spec.network.proxyPort, socket: PROXY_SOCKET },
    ]
    bwrap.push('--', '/bin/sh', '-c', bridgeScript(bridges), 'sandbox', file, ...command.args)
  } else {
    bwrap.push('--', file, ...command.args)
  }
  if (spec.overlay === undefined) return { file: 'bwrap', args: bwrap }
  return { file: 'nsenter', args: ['--target', String(spec.overlay.pid), '--user', '--mount', '--preserve-credentials', '--', 'bwrap', ...bwrap] }
}
