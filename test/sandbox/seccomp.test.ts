import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import {
  DENIED_SYSCALLS,
  ENOSYS_SYSCALLS,
  encodeProgram,
  filterProgram,
  FLAG_CHECKED_SYSCALLS,
  NEW_NAMESPACE_FLAGS,
  SYSCALL_TABLES,
  seccompFilterFile,
} from '../../src/sandbox/seccomp.ts'

// The syscall filter, as data: its numbers against libseccomp's own table, its verdicts by running the program.

const ARCHES = { x64: 'x86_64', arm64: 'aarch64' } as const

/** Runs a classic BPF program (the few opcodes the filter uses) on one `seccomp_data`. */
function run(program: Buffer, data: { nr: number; arch: number; arg0?: number }): number {
  const word = (offset: number) => (offset === 0 ? data.nr : offset === 4 ? data.arch : offset === 16 ? (data.arg0 ?? 0) : 0)
  let accumulator = 0
  for (let pc = 0; pc < program.length / 8; ) {
    const code = program.readUInt16LE(pc * 8)
    const jt = program.readUInt8(pc * 8 + 2)
    const jf = program.readUInt8(pc * 8 + 3)
    const k = program.readUInt32LE(pc * 8 + 4)
    if (code === 0x20) accumulator = word(k) >>> 0
    else if (code === 0x06) return k
    else if (code === 0x15) pc += accumulator === k ? jt : jf
    else if (code === 0x35) pc += accumulator >= k ? jt : jf
    else if (code === 0x45) pc += (accumulator & k) !== 0 ? jt : jf
    else throw new Error(`opcode ${code.toString(16)}`)
    pc += 1
  }
  throw new Error('fell off the end')
}

const ALLOW = 0x7fff0000
const EPERM = 0x00050001
const ENOSYS = 0x00050026

describe('the syscall filter', () => {
  for (const [arch, name] of Object.entries(ARCHES)) {
    test(`knows each syscall's number on ${name} as libseccomp does`, () => {
      const table = SYSCALL_TABLES[arch]!
      for (const syscall of [...DENIED_SYSCALLS, ...FLAG_CHECKED_SYSCALLS, ...ENOSYS_SYSCALLS]) {
        const resolved = execFileSync('scmp_sys_resolver', ['-a', name, syscall], { encoding: 'utf8' }).trim()
        expect(table.numbers[syscall], syscall).toBe(Number(resolved))
      }
    })

    test(`on ${name}: refuses each listed call, answers clone3 ENOSYS, checks clone's and unshare's flags, allows the rest`, () => {
      const table = SYSCALL_TABLES[arch]!
      const program = encodeProgram(filterProgram(table))
      const call = (nr: number, arg0?: number) => run(program, { nr, arch: table.audit, ...(arg0 === undefined ? {} : { arg0 }) })
      for (const syscall of DENIED_SYSCALLS) expect(call(table.numbers[syscall]), syscall).toBe(EPERM)
      expect(call(table.numbers.clone3)).toBe(ENOSYS)
      // glibc's pthread_create and fork flags pass; any CLONE_NEW* flag does not.
      expect(call(table.numbers.clone, 0x003d0f00)).toBe(ALLOW)
      expect(call(table.numbers.clone, 0x01200011)).toBe(ALLOW)
      for (const flag of [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080]) {
        expect(call(table.numbers.clone, 0x01200011 | flag), `clone ${flag.toString(16)}`).toBe(EPERM)
        expect(call(table.numbers.unshare, flag), `unshare ${flag.toString(16)}`).toBe(EPERM)
      }
      expect(NEW_NAMESPACE_FLAGS).toBe(0x7e020080)
      expect(call(table.numbers.unshare, 0x00000400)).toBe(ALLOW) // CLONE_FILES: no namespace
      for (const everyday of [0, 1, 2, 3, 59, 60, 231]) expect(call(everyday)).toBe(ALLOW)
      // Another architecture's convention (i386 through int 0x80) is refused whole.
      expect(run(program, { nr: 0, arch: 0x40000003 })).toBe(EPERM)
      if (table.foreignAbove !== undefined) expect(call(table.foreignAbove + 0)).toBe(EPERM) // x32's read
    })
  }
})

describe('the filter file', () => {
  test('holds this machine’s program, read-only, written once per process', () => {
    const file = seccompFilterFile()
    expect(file).not.toBeNull()
    expect(path.basename(file!)).toBe('filter.bpf')
    expect(path.basename(path.dirname(file!))).toMatch(/^task-outcome-seccomp-/)
    expect(statSync(file!).mode & 0o777).toBe(0o444)
    expect(readFileSync(file!).equals(encodeProgram(filterProgram(SYSCALL_TABLES[process.arch]!)))).toBe(true)
    expect(seccompFilterFile()).toBe(file)
  })

  test('is written again when the file was removed (a cleaned temporary folder)', () => {
    const first = seccompFilterFile()!
    rmSync(path.dirname(first), { recursive: true, force: true })
    const second = seccompFilterFile()!
    expect(second).not.toBe(first)
    expect(existsSync(second)).toBe(true)
    expect(seccompFilterFile()).toBe(second)
  })

  test('encodes each instruction as the kernel reads it: u16 code, u8 jt, u8 jf, u32 k, little-endian', () => {
    const encoded = encodeProgram([
      { code: 0x15, jt: 1, jf: 2, k: 0xc000003e },
      { code: 0x06, jt: 0, jf: 0, k: -1 },
    ])
    expect([...encoded]).toStrictEqual([0x15, 0, 1, 2, 0x3e, 0x00, 0x00, 0xc0, 0x06, 0, 0, 0, 0xff, 0xff, 0xff, 0xff])
  })

  test('checks the architecture first and refuses a foreign ABI before comparing numbers', () => {
    const table = SYSCALL_TABLES.x64!
    const program = filterProgram(table)
    expect(program.slice(0, 4)).toStrictEqual([
      { code: 0x20, jt: 0, jf: 0, k: 4 },
      { code: 0x15, jt: 0, jf: program.length - 6 - 1 - 1, k: table.audit },
      { code: 0x20, jt: 0, jf: 0, k: 0 },
      { code: 0x35, jt: program.length - 6 - 3 - 1, jf: 0, k: 0x40000000 },
    ])
    expect(SYSCALL_TABLES.arm64!.foreignAbove).toBeUndefined()
    expect(filterProgram(SYSCALL_TABLES.arm64!).filter((instruction) => instruction.code === 0x35)).toStrictEqual([])
  })
})

describe('the filter file elsewhere', () => {
  /** A module instance of its own, so that its once-per-process file is not this file's. */
  const fresh = async () => {
    vi.resetModules()
    return await import('../../src/sandbox/seccomp.ts')
  }
  const arch = Object.getOwnPropertyDescriptor(process, 'arch')!
  afterEach(() => {
    Object.defineProperty(process, 'arch', arch)
  })

  test('is none on an architecture the filter does not know, for the rest of the process', async () => {
    const seccomp = await fresh()
    Object.defineProperty(process, 'arch', { ...arch, value: 'sparc' })
    expect(seccomp.seccompFilterFile()).toBeNull()
    Object.defineProperty(process, 'arch', arch)
    expect(seccomp.seccompFilterFile()).toBeNull()
  })

  test('is none on a big-endian machine (the program is written little-endian)', async () => {
    const seccomp = await fresh()
    const endianness = os.endianness
    os.endianness = () => 'BE'
    try {
      expect(seccomp.seccompFilterFile()).toBeNull()
    } finally {
      os.endianness = endianness
    }
  })

  test('is written on a known little-endian architecture', async () => {
    const seccomp = await fresh()
    expect(seccomp.seccompFilterFile()).toMatch(/filter\.bpf$/)
  })
})
