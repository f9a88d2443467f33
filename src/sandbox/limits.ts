import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * What one run may use of the machine (`sandbox.limits` in the experiment),
 * so that no run can hurt the machine or the runs beside it:
 * - **processes** and **memory** through a cgroup of the run where the
 *   machine lets the harness make one (cgroup v2 with the `pids` and `memory`
 *   controllers delegated to the harness's own cgroup; or, under root, the v1
 *   `pids` and `memory` hierarchies), which also names the limit a run hit;
 *   and always through rlimits set inside the sandbox: `RLIMIT_NPROC`, which
 *   the kernel (5.14+) counts per user namespace, so per sandbox, and
 *   `RLIMIT_DATA` per process (not `RLIMIT_AS`: V8 reserves far more address
 *   space than it uses);
 * - **disk**: the overlay's upper layer lives on a tmpfs of this size in the
 *   holder's namespace, `/tmp` and `/dev/shm` are tmpfs of this size, so the
 *   host's disk is never written;
 * - **cpu**: cores, as a CFS quota of the run's cgroup (not enforced without one).
 */

/** The limits of one run, as the experiment states them. */
export interface SandboxLimits {
  /** Processes and threads alive at once in one sandbox. */
  readonly processes: number
  /** Memory of the run (RAM, with swap where the cgroup counts it), in MiB. */
  readonly memoryMb: number
  /** What the run may write (its workspace's upper layer; `/tmp`, `/dev/shm`), in MiB. */
  readonly diskMb: number
  /** CPU cores (a quota), or null for no limit. */
  readonly cpu: number | null
}

/**
 * The defaults: well above what a real agent run uses (the demo's Claude Code
 * runs stay under 60 processes and 700 MiB; a `npm install` in the workspace
 * writes a few hundred MiB), and well below what would hurt a CI machine.
 */
export const DEFAULT_LIMITS: SandboxLimits = { processes: 1024, memoryMb: 4096, diskMb: 4096, cpu: null }

/** Which limit a run hit (`limit` in its record). */
export type LimitName = 'processes' | 'memory' | 'disk'

/**
 * The rlimits set inside the sandbox (as the first command there, so that
 * `RLIMIT_NPROC` counts in the sandbox's own user namespace), as `prlimit`
 * arguments. Used where the run has no cgroup: with one, its limits act
 * (and are seen) first.
 */
export function rlimitArgs(limits: SandboxLimits): string[] {
  const data = limits.memoryMb * 1024 * 1024
  return ['prlimit', `--nproc=${limits.processes}:${limits.processes}`, `--data=${data}:${data}`, '--']
}

/**
 * Where this process sits in each hierarchy, from `/proc/self/cgroup` (`text`, for tests): its
 * `hierarchy-id:controllers:path` lines, each controller of a v1 hierarchy mapped to the path, v2's to `unified`.
 */
export function ownCgroups(text: string = readFileSync('/proc/self/cgroup', 'utf8')): Map<string, string> {
  const map = new Map<string, string>()
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line)
    if (match === null) continue
    for (const controller of match[1] === '' ? ['unified'] : match[1]!.split(',')) map.set(controller, match[2]!)
  }
  return map
}

let counter = 0

/** Reads a cgroup's event file (`key value` lines) into numbers. */
function events(file: string): Record<string, number> {
  if (!existsSync(file)) return {}
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((parts) => parts.length === 2)
      .map(([key, value]) => [key, Number(value)]),
  )
}

function tryMkdir(dir: string): boolean {
  try {
    mkdirSync(dir)
  } catch {
    return false
  }
  return true
}

/** One file of a fresh cgroup and what it is set to: `file` in the run's cgroup of `hierarchy` (v2: the one cgroup). */
export interface CgroupSetting {
  readonly hierarchy: 'pids' | 'memory' | 'cpu'
  readonly file: string
  readonly text: string
}

/**
 * What a fresh cgroup's files are set to, in order: the limits, where the kernel made the file for them (`made`:
 * which of the optional ones it did; the kernel makes a cgroup's files, so no test can lay them out by hand).
 * v2: `pids.max`, `memory.max`, swap off (`memory.swap.max`), the CPU quota (`cpu.max`). v1: the pids and memory
 * hierarchies' (swap counted, `memory.memsw.limit_in_bytes`, at the memory limit), the cpu one's quota per period.
 */
export function cgroupSettings(kind: 'v2' | 'v1', limits: SandboxLimits, made: (hierarchy: CgroupSetting['hierarchy'], file: string) => boolean): CgroupSetting[] {
  const bytes = String(limits.memoryMb * 1024 * 1024)
  const quota = limits.cpu === null ? null : String(Math.round(limits.cpu * 100000))
  const settings: CgroupSetting[] = [{ hierarchy: 'pids', file: 'pids.max', text: String(limits.processes) }]
  if (kind === 'v2') {
    settings.push({ hierarchy: 'memory', file: 'memory.max', text: bytes })
    if (made('memory', 'memory.swap.max')) settings.push({ hierarchy: 'memory', file: 'memory.swap.max', text: '0' })
    if (quota !== null && made('cpu', 'cpu.max')) settings.push({ hierarchy: 'cpu', file: 'cpu.max', text: `${quota} 100000` })
    return settings
  }
  settings.push({ hierarchy: 'memory', file: 'memory.limit_in_bytes', text: bytes })
  if (made('memory', 'memory.memsw.limit_in_bytes')) settings.push({ hierarchy: 'memory', file: 'memory.memsw.limit_in_bytes', text: bytes })
  if (quota !== null) settings.push({ hierarchy: 'cpu', file: 'cpu.cfs_period_us', text: '100000' }, { hierarchy: 'cpu', file: 'cpu.cfs_quota_us', text: quota })
  return settings
}

/**
 * The cgroup(s) of one run: its processes join them before bubblewrap starts
 * (`join`, the `cgroup.procs` files), and `hit()` reads afterwards whether a
 * limit was reached. `create` returns null where the machine gives the
 * harness no cgroup to make (the rlimits still hold).
 */
export class RunCgroup {
  readonly kind: 'v2' | 'v1'
  readonly #dirs: { readonly pids: string; readonly memory: string; readonly cpu?: string }

  private constructor(kind: 'v2' | 'v1', dirs: { pids: string; memory: string; cpu?: string }) {
    this.kind = kind
    this.#dirs = dirs
  }

  /**
   * A fresh cgroup with these limits, or null where none can be made: under `root`, beside the cgroups `own` names
   * (this process's, from `/proc/self/cgroup`; both parameters, so trees laid out by hand can be tested).
   */
  static create(limits: SandboxLimits, root = '/sys/fs/cgroup', own: ReadonlyMap<string, string> = ownCgroups()): RunCgroup | null {
    const name = `task-outcome-${process.pid}-${++counter}`
    // v2: a child of the harness's cgroup, or (a cgroup with processes cannot give its children controllers) a sibling.
    const unified = path.join(root, own.get('unified') ?? '/')
    const v2 = existsSync(path.join(root, 'cgroup.controllers')) ? [unified, path.dirname(unified)].find((dir) => delegates(dir)) : undefined
    if (v2 !== undefined) {
      const dir = path.join(v2, name)
      if (tryMkdir(dir)) {
        try {
          for (const { file, text } of cgroupSettings('v2', limits, (_, file) => existsSync(path.join(dir, file)))) writeFileSync(path.join(dir, file), text)
          return new RunCgroup('v2', { pids: dir, memory: dir })
        } catch {
          rmdirSync(dir)
        }
      }
    }
    const pidsPath = own.get('pids')
    const memoryPath = own.get('memory')
    if (pidsPath === undefined || memoryPath === undefined || !existsSync(path.join(root, 'pids', 'cgroup.procs'))) return null
    const pids = path.join(root, 'pids', pidsPath, name)
    const memory = path.join(root, 'memory', memoryPath, name)
    if (!tryMkdir(pids)) return null
    if (!tryMkdir(memory)) {
      rmdirSync(pids)
      return null
    }
    // The cpu hierarchy only for a CPU limit, and only where the harness is in one (the limit is then not enforced).
    const cpuPath = own.get('cpu')
    const cpuDir = cpuPath === undefined ? undefined : path.join(root, 'cpu', cpuPath, name)
    const cpu = limits.cpu !== null && cpuDir !== undefined && tryMkdir(cpuDir) ? cpuDir : undefined
    const dirs = { pids, memory, cpu }
    try {
      for (const { hierarchy, file, text } of cgroupSettings('v1', limits, (_, file) => existsSync(path.join(memory, file)))) {
        const dir = dirs[hierarchy]
        if (dir !== undefined) writeFileSync(path.join(dir, file), text)
      }
    } catch {
      for (const dir of [pids, memory, cpu]) if (dir !== undefined) rmdirSync(dir)
      return null
    }
    return new RunCgroup('v1', { pids, memory, ...(cpu === undefined ? {} : { cpu }) })
  }

  /** The `cgroup.procs` files a process writes its pid to, to join the run's cgroup(s). */
  get join(): string[] {
    const dirs = [...new Set([this.#dirs.pids, this.#dirs.memory, ...(this.#dirs.cpu === undefined ? [] : [this.#dirs.cpu])])]
    return dirs.map((dir) => path.join(dir, 'cgroup.procs'))
  }

  /** The limit the run's processes reached, if any (memory first: an out-of-memory kill also ends forks). */
  hit(): LimitName | null {
    // An out-of-memory kill, not the limit merely reached: page cache is reclaimed at the limit in healthy runs too.
    const memory = events(path.join(this.#dirs.memory, this.kind === 'v2' ? 'memory.events' : 'memory.oom_control'))
    if ((memory.oom_kill ?? 0) > 0) return 'memory'
    return (events(path.join(this.#dirs.pids, 'pids.events')).max ?? 0) > 0 ? 'processes' : null
  }

  /** Removes the cgroup(s) once their processes are gone (bwrap's PID namespace ends them all with its main process). */
  release(): void {
    for (const dir of new Set([this.#dirs.pids, this.#dirs.memory, ...(this.#dirs.cpu === undefined ? [] : [this.#dirs.cpu])])) {
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          rmdirSync(dir)
          break
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code
          if (code === 'ENOENT') break
          if (code !== 'EBUSY' || attempt === 49) break
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
        }
      }
    }
  }
}

/** Whether a v2 cgroup gives its children the pids and memory controllers. */
function delegates(dir: string): boolean {
  const controllers = readable(path.join(dir, 'cgroup.subtree_control')).split(/\s+/)
  return controllers.includes('pids') && controllers.includes('memory')
}

/** A file's trimmed text, or '' when it cannot be read. */
function readable(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim()
  } catch {
    return ''
  }
}
