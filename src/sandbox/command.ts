import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { asSandboxIdentity, handOver, reachable, sandboxIdentity, stagingDir } from './identity.ts'
import { DEFAULT_LIMITS, rlimitArgs } from './limits.ts'
import { seccompFilterFile } from './seccomp.ts'
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
  const lines = bridges.map(({ port, socket }) => `socat TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SANDBOX_SOCKET_DIR}/${socket} 2>/dev/null &`)
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

/** One bind of the sandbox: `source` on the host (or in the overlay holder's namespace) at `target` inside. */
interface Bind {
  readonly flag: '--ro-bind' | '--bind'
  source: string
  readonly target: string
}

/**
 * Run by /bin/sh before bubblewrap, as the harness: mounts a tmpfs on the
 * staging folder and binds there what the sandbox uid cannot reach by path
 * ($1 the folder, $2 how many, then the sources), opens the syscall filter on
 * descriptor 9 for `--seccomp 9` (the next argument, or empty), joins the
 * run's cgroups (a count, then their `cgroup.procs` files), then execs the
 * rest (setpriv, bwrap). Every step execs, so bwrap's parent is still the
 * harness (`--die-with-parent`).
 */
const PRELUDE = [
  'stage=$1; n=$2; shift 2',
  'if [ "$n" -gt 0 ]; then',
  '  mount -t tmpfs -o mode=0755,size=64k task-outcome-stage "$stage" || exit 125',
  '  i=0; while [ "$i" -lt "$n" ]; do',
  '    if [ -d "$1" ]; then mkdir "$stage/$i"; else : > "$stage/$i"; fi',
  '    mount --bind "$1" "$stage/$i" || exit 125',
  '    i=$((i+1)); shift',
  '  done',
  'fi',
  'if [ -n "$1" ]; then exec 9<"$1" || exit 125; fi',
  'm=$2; shift 2',
  'while [ "$m" -gt 0 ]; do echo $$ > "$1" || exit 125; m=$((m-1)); shift; done',
  'exec "$@"',
].join('\n')

/** The descriptor bwrap reads the syscall filter from. */
const FILTER_FD = '9'

/**
 * The command line that runs `command` inside the sandbox `spec` describes:
 * every capability dropped (`--cap-drop ALL`; bwrap sets `no_new_privs`),
 * the syscall filter of `seccomp.ts`, and, when the harness is root, the
 * sandbox uid of `identity.ts` (the writable folders handed to it first, a
 * side effect of building the line, so no caller can forget it).
 */
export function sandboxCommandLine(spec: SandboxSpec, command: SandboxedCommand): { file: string; args: string[] } {
  const identity = sandboxIdentity()
  const binds: Bind[] = []
  const bound = new Set<string>()
  for (const dir of spec.readOnly) {
    if (!existsSync(dir) || bound.has(dir)) continue
    bound.add(dir)
    binds.push({ flag: '--ro-bind', source: dir, target: dir })
  }
  const writable: string[] = []
  for (const dir of spec.writable) {
    if (bound.has(dir)) continue
    bound.add(dir)
    writable.push(dir)
    binds.push({ flag: '--bind', source: dir, target: dir })
  }
  for (const mount of spec.writableMounts ?? []) {
    if (bound.has(mount.target)) continue
    bound.add(mount.target)
    writable.push(mount.onHost)
    binds.push({ flag: '--bind', source: mount.source, target: mount.target })
  }
  if (spec.overlay !== undefined) binds.push({ flag: '--bind', source: spec.overlay.target, target: spec.overlay.target })
  for (const mount of spec.mounts ?? []) binds.push({ flag: '--ro-bind', source: mount.source, target: mount.target })
  if (spec.network !== 'none') {
    writable.push(spec.network.socketDir)
    binds.push({ flag: '--ro-bind', source: spec.network.socketDir, target: SANDBOX_SOCKET_DIR })
  }
  handOver(
    writable.filter((dir) => existsSync(dir)),
    identity,
  )
  const staged: string[] = []
  if (identity !== null) {
    for (const bind of binds) {
      if (reachable(bind.source, identity)) continue
      bind.source = path.join(stagingDir(), String(staged.push(bind.source) - 1))
    }
  }
  const filter = seccompFilterFile()
  const limits = spec.limits ?? DEFAULT_LIMITS
  const size = String(limits.diskMb * 1024 * 1024)
  const cgroup = spec.cgroup ?? []
  const inner = cgroup.length === 0 ? rlimitArgs(limits) : []
  const bwrap: string[] = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...(filter === null ? [] : ['--seccomp', FILTER_FD]),
    '--uid',
    String(identity === null ? (process.getuid?.() ?? 0) : 0),
    '--gid',
    String(identity === null ? (process.getgid?.() ?? 0) : 0),
    '--hostname',
    'sandbox',
    ...systemMounts(),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--size',
    size,
    '--tmpfs',
    '/tmp',
    '--size',
    size,
    '--tmpfs',
    '/dev/shm',
    '--tmpfs',
    '/run',
  ]
  for (const bind of binds) bwrap.push(bind.flag, bind.source, bind.target)
  // Order matters: bwrap applies --clearenv and --setenv as it reads them.
  bwrap.push('--clearenv')
  for (const [name, value] of Object.entries(command.env)) bwrap.push('--setenv', name, value)
  bwrap.push('--chdir', command.cwd)
  const file = path.isAbsolute(command.file) && existsSync(command.file) ? realpathSync(command.file) : command.file
  if (spec.network !== 'none') {
    const bridges = [...spec.network.loopbackPorts.map((port) => ({ port, socket: `${port}.sock` })), { port: spec.network.proxyPort, socket: PROXY_SOCKET }]
    bwrap.push('--', ...inner, '/bin/sh', '-c', bridgeScript(bridges), 'sandbox', file, ...command.args)
  } else {
    bwrap.push('--', ...inner, file, ...command.args)
  }
  const prelude = [
    '/bin/sh',
    '-c',
    PRELUDE,
    'sandbox-prelude',
    staged.length === 0 ? '' : stagingDir(),
    String(staged.length),
    ...staged,
    filter ?? '',
    String(cgroup.length),
    ...cgroup,
  ]
  const started = [...prelude, ...asSandboxIdentity(identity), 'bwrap', ...bwrap]
  const isolated = staged.length === 0 ? started : ['unshare', '--mount', '--propagation', 'private', '--', ...started]
  if (spec.overlay === undefined) return { file: isolated[0]!, args: isolated.slice(1) }
  // As root the holder has a mount namespace only; as a user, its user namespace too (bwrap then runs inside it).
  const enter = identity === null ? ['--user', '--mount', '--preserve-credentials'] : ['--mount']
  return { file: 'nsenter', args: ['--target', String(spec.overlay.pid), ...enter, '--', ...isolated] }
}
