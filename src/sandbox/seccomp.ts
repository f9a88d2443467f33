import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * The syscall filter every sandboxed process runs under, handed to bubblewrap
 * as a classic BPF program (`--seccomp FD`). A small hand-written program
 * rather than libseccomp: no native dependency to pin, every instruction
 * visible here, and the syscall numbers checked against libseccomp's own
 * table (`scmp_sys_resolver`) by `test/sandbox/seccomp.test.ts`.
 *
 * It refuses (EPERM) what no agent needs and every known escape used: mount
 * and the new mount API, `pivot_root`, `ptrace` and reading or writing
 * another process's memory or file descriptors, kernel modules and `kexec`,
 * `bpf`, keyrings, `perf_event_open`, `userfaultfd`, file handles, swap and
 * reboot, and joining or making namespaces (`setns`; `unshare` and `clone`
 * with a `CLONE_NEW*` flag). `clone3` gets ENOSYS, so libc falls back to
 * `clone`, whose flags a classic filter can read (clone3's are behind a
 * pointer). A call made under another architecture's convention (i386
 * through `int 0x80`, x32) is refused whole.
 */

/** The syscalls refused, by name (numbers per architecture below). */
export const DENIED_SYSCALLS = [
  'mount',
  'umount2',
  'pivot_root',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'pidfd_getfd',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'bpf',
  'keyctl',
  'add_key',
  'request_key',
  'perf_event_open',
  'userfaultfd',
  'open_by_handle_at',
  'swapon',
  'swapoff',
  'reboot',
  'setns',
] as const

/** Syscalls whose first argument is a flag word: refused when it asks for a new namespace. */
export const FLAG_CHECKED_SYSCALLS = ['unshare', 'clone'] as const

/** Syscalls answered ENOSYS (libc then uses an older one the filter can read). */
export const ENOSYS_SYSCALLS = ['clone3'] as const

type Name = (typeof DENIED_SYSCALLS)[number] | (typeof FLAG_CHECKED_SYSCALLS)[number] | (typeof ENOSYS_SYSCALLS)[number]

/** One architecture: its audit id (`AUDIT_ARCH_*`) and its syscall numbers. */
export interface SyscallTable {
  readonly audit: number
  /** Numbers at or above this belong to another ABI on the same audit id (x32 on x86_64). */
  readonly foreignAbove?: number
  readonly numbers: Readonly<Record<Name, number>>
}

/** The new mount API's syscalls: numbered alike on every architecture (Linux 5.2 onwards gave new syscalls one number everywhere). */
const NEW_MOUNT_API = { open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442 } as const

/** The architectures the filter knows, by `process.arch`. */
export const SYSCALL_TABLES: Readonly<Record<string, SyscallTable>> = {
  x64: {
    audit: 0xc000003e,
    foreignAbove: 0x40000000,
    numbers: {
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      ...NEW_MOUNT_API,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      pidfd_getfd: 438,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      bpf: 321,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      perf_event_open: 298,
      userfaultfd: 323,
      open_by_handle_at: 304,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      setns: 308,
      unshare: 272,
      clone: 56,
      clone3: 435,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    numbers: {
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      ...NEW_MOUNT_API,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      pidfd_getfd: 438,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      bpf: 280,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      perf_event_open: 241,
      userfaultfd: 282,
      open_by_handle_at: 265,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
      setns: 268,
      unshare: 97,
      clone: 220,
      clone3: 435,
    },
  },
}

/** Every `CLONE_NEW*` flag: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME. */
export const NEW_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080

// Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20
const JEQ_K = 0x15
const JGE_K = 0x35
const JSET_K = 0x45
const RET_K = 0x06
const RET_ALLOW = 0x7fff0000
const RET_ERRNO = 0x00050000
const EPERM = 1
const ENOSYS = 38
// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6] (little-endian: low half first).
const OFFSET_NR = 0
const OFFSET_ARCH = 4
const OFFSET_ARG0_LOW = 16

interface Instruction {
  readonly code: number
  readonly jt: number
  readonly jf: number
  readonly k: number
}

const op = (code: number, k: number, jt = 0, jf = 0): Instruction => ({ code, jt, jf, k })

/**
 * The filter's instructions for one architecture. Layout: check the arch,
 * load the number, refuse foreign ABIs, then one `jeq` per listed syscall
 * jumping to its verdict at the end (deny, ENOSYS, or the flag check of
 * `clone`/`unshare`), and allow everything else.
 */
export function filterProgram(table: SyscallTable): Instruction[] {
  const denied = DENIED_SYSCALLS.map((name) => table.numbers[name])
  const enosys = ENOSYS_SYSCALLS.map((name) => table.numbers[name])
  const checked = FLAG_CHECKED_SYSCALLS.map((name) => table.numbers[name])
  // Tail, in order: [ALLOW] [DENY] [ENOSYS] [ld arg0] [jset NEW_NS] [ALLOW] [DENY]
  const compares = [
    ...denied.map((nr) => ({ nr, to: 'deny' as const })),
    ...enosys.map((nr) => ({ nr, to: 'enosys' as const })),
    ...checked.map((nr) => ({ nr, to: 'flags' as const })),
  ]
  const head: Instruction[] = []
  // 0: arch; a foreign arch jumps to DENY (filled in once the tail's position is known).
  head.push(op(LD_W_ABS, OFFSET_ARCH))
  const archJump = head.push(op(JEQ_K, table.audit)) - 1
  head.push(op(LD_W_ABS, OFFSET_NR))
  const foreignJump = table.foreignAbove === undefined ? -1 : head.push(op(JGE_K, table.foreignAbove)) - 1
  const compareStart = head.length
  for (const { nr } of compares) head.push(op(JEQ_K, nr))
  const allow = head.length
  const deny = allow + 1
  const enosysAt = allow + 2
  const flags = allow + 3
  const tail: Instruction[] = [
    op(RET_K, RET_ALLOW),
    op(RET_K, RET_ERRNO | EPERM),
    op(RET_K, RET_ERRNO | ENOSYS),
    op(LD_W_ABS, OFFSET_ARG0_LOW),
    op(JSET_K, NEW_NAMESPACE_FLAGS, 1, 0),
    op(RET_K, RET_ALLOW),
    op(RET_K, RET_ERRNO | EPERM),
  ]
  // Jump offsets are relative to the next instruction.
  const rel = (from: number, to: number) => {
    const offset = to - from - 1
    if (offset < 0 || offset > 255) throw new Error(`seccomp filter: jump of ${offset} out of range`)
    return offset
  }
  head[archJump] = { ...head[archJump]!, jt: 0, jf: rel(archJump, deny) }
  if (foreignJump >= 0) head[foreignJump] = { ...head[foreignJump]!, jt: rel(foreignJump, deny), jf: 0 }
  compares.forEach(({ to }, index) => {
    const at = compareStart + index
    const target = to === 'deny' ? deny : to === 'enosys' ? enosysAt : flags
    head[at] = { ...head[at]!, jt: rel(at, target), jf: 0 }
  })
  return [...head, ...tail]
}

/** The program as the kernel reads it: `struct sock_filter` (u16 code, u8 jt, u8 jf, u32 k), native byte order. */
export function encodeProgram(program: readonly Instruction[]): Buffer {
  const buffer = Buffer.alloc(program.length * 8)
  program.forEach(({ code, jt, jf, k }, index) => {
    buffer.writeUInt16LE(code, index * 8)
    buffer.writeUInt8(jt, index * 8 + 2)
    buffer.writeUInt8(jf, index * 8 + 3)
    buffer.writeUInt32LE(k >>> 0, index * 8 + 4)
  })
  return buffer
}

let written: string | undefined | null

/**
 * The filter of this machine's architecture, written once per process to a
 * private file (bwrap reads it from an inherited descriptor); null on an
 * architecture the filter does not know (docs/sandbox.md says so).
 */
export function seccompFilterFile(): string | null {
  if (written === null || (written !== undefined && existsSync(written))) return written
  const table = SYSCALL_TABLES[process.arch]
  if (table === undefined || os.endianness() !== 'LE') return (written = null)
  const dir = mkdtempSync(path.join(os.tmpdir(), 'task-outcome-seccomp-'))
  const file = path.join(dir, 'filter.bpf')
  writeFileSync(file, encodeProgram(filterProgram(table)), { mode: 0o444 })
  return (written = file)
}
