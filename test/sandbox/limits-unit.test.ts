import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { cgroupSettings, DEFAULT_LIMITS, ownCgroups, RunCgroup, rlimitArgs } from '../../src/sandbox/limits.ts'

// What one run may use of the machine: the rlimits set inside the sandbox, and the run's cgroup, made in a
// cgroup tree laid out by hand (its root and the harness's own cgroups parameters of `RunCgroup.create`) and in the
// machine's own.

/**
 * Where the harness sits in each hierarchy (what `ownCgroups` reads from /proc/self/cgroup), fixed so that every
 * layout is tested on any machine: a hybrid one, with a nested unified cgroup and the v1 pids, memory and cpu ones.
 */
const own: ReadonlyMap<string, string> = new Map([
  ['unified', '/harness.slice/run.scope'],
  ['pids', '/harness'],
  ['memory', '/harness'],
  ['cpu', '/harness'],
])

let root: string
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'limits-test-'))
})
afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

const LIMITS = { processes: 77, memoryMb: 96, diskMb: 8, cpu: null }
const BYTES = String(96 * 1024 * 1024)
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
}
const read = (file: string) => readFileSync(file, 'utf8')
/** The run cgroups made under `dir`. */
const made = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(`task-outcome-${process.pid}-`)) : [])

/** A cgroup v2 tree whose cgroup at `at` (the harness's own, or its parent) delegates `controllers`. */
function v2Tree(controllers: string, at = own.get('unified')!): string {
  write(path.join(root, 'cgroup.controllers'), 'cpu memory pids')
  write(path.join(root, at, 'cgroup.subtree_control'), controllers)
  return path.join(root, at)
}

/** A cgroup v1 tree with the pids and memory hierarchies (and cpu), the harness's own cgroup in each. */
function v1Tree(): void {
  write(path.join(root, 'pids', 'cgroup.procs'), '')
  mkdirSync(path.join(root, 'pids', own.get('pids')!), { recursive: true })
  mkdirSync(path.join(root, 'memory', own.get('memory')!), { recursive: true })
  mkdirSync(path.join(root, 'cpu', own.get('cpu')!), { recursive: true })
}

describe('rlimitArgs', () => {
  test('sets the process count and the data size, soft and hard, as prlimit’s arguments', () => {
    expect(rlimitArgs(LIMITS)).toStrictEqual(['prlimit', '--nproc=77:77', `--data=${BYTES}:${BYTES}`, '--'])
  })
})

describe('the default limits', () => {
  test('are 1024 processes, 4 GiB of memory and of disk, no CPU quota', () => {
    expect(DEFAULT_LIMITS).toStrictEqual({ processes: 1024, memoryMb: 4096, diskMb: 4096, cpu: null })
  })
})

describe('ownCgroups', () => {
  test('maps each controller of a v1 hierarchy to its path, and v2 to unified', () => {
    const text = ['12:pids:/a.slice', '11:cpu,cpuacct:/b', '1:name=systemd:/c', '0::/user.slice/run.scope', ''].join('\n')
    expect(ownCgroups(text)).toStrictEqual(
      new Map([
        ['pids', '/a.slice'],
        ['cpu', '/b'],
        ['cpuacct', '/b'],
        ['name=systemd', '/c'],
        ['unified', '/user.slice/run.scope'],
      ]),
    )
  })

  test('keeps a path that holds colons whole, and skips lines of another shape', () => {
    expect(ownCgroups(['4:memory:/docker/a:b', 'x4:pids:/wrong', 'a:cpu:/wrong', '5:blkio', '', '7:devices:/'].join('\n'))).toStrictEqual(
      new Map([
        ['memory', '/docker/a:b'],
        ['devices', '/'],
      ]),
    )
  })

  test("reads this process's own file by default", () => {
    const own = ownCgroups()
    expect(own.size).toBeGreaterThan(0)
    expect([...own.values()].every((where) => where.startsWith('/'))).toBe(true)
  })
})

describe('cgroupSettings', () => {
  const all = () => true
  const none = () => false
  test('v2: the process and memory limits, swap off and the CPU quota where the kernel made their files', () => {
    expect(cgroupSettings('v2', { ...LIMITS, cpu: 1.5 }, all)).toStrictEqual([
      { hierarchy: 'pids', file: 'pids.max', text: '77' },
      { hierarchy: 'memory', file: 'memory.max', text: BYTES },
      { hierarchy: 'memory', file: 'memory.swap.max', text: '0' },
      { hierarchy: 'cpu', file: 'cpu.max', text: '150000 100000' },
    ])
    expect(cgroupSettings('v2', { ...LIMITS, cpu: 1.5 }, none)).toStrictEqual([
      { hierarchy: 'pids', file: 'pids.max', text: '77' },
      { hierarchy: 'memory', file: 'memory.max', text: BYTES },
    ])
  })

  test('v2: no CPU quota without a CPU limit; asks the kernel only about the optional files', () => {
    const asked: string[] = []
    const settings = cgroupSettings('v2', LIMITS, (hierarchy, file) => {
      asked.push(`${hierarchy}/${file}`)
      return true
    })
    expect(settings.map((setting) => setting.file)).toStrictEqual(['pids.max', 'memory.max', 'memory.swap.max'])
    expect(asked).toStrictEqual(['memory/memory.swap.max'])
  })

  test('v1: swap counted at the memory limit where the kernel counts it, the quota per 100 ms period', () => {
    expect(cgroupSettings('v1', { ...LIMITS, cpu: 0.25 }, all)).toStrictEqual([
      { hierarchy: 'pids', file: 'pids.max', text: '77' },
      { hierarchy: 'memory', file: 'memory.limit_in_bytes', text: BYTES },
      { hierarchy: 'memory', file: 'memory.memsw.limit_in_bytes', text: BYTES },
      { hierarchy: 'cpu', file: 'cpu.cfs_period_us', text: '100000' },
      { hierarchy: 'cpu', file: 'cpu.cfs_quota_us', text: '25000' },
    ])
    expect(cgroupSettings('v1', LIMITS, none)).toStrictEqual([
      { hierarchy: 'pids', file: 'pids.max', text: '77' },
      { hierarchy: 'memory', file: 'memory.limit_in_bytes', text: BYTES },
    ])
  })
})

describe('RunCgroup.create', () => {
  test('is null where the machine gives no cgroup to make (no v2 tree, no v1 pids hierarchy)', () => {
    expect(RunCgroup.create(LIMITS, root, own)).toBeNull()
    expect(made(root)).toStrictEqual([])
  })

  test('makes a v2 child of the harness’s cgroup with the pids and memory limits', () => {
    const parent = v2Tree('cpu memory pids')
    const cgroup = RunCgroup.create(LIMITS, root, own)
    expect(cgroup?.kind).toBe('v2')
    const [name] = made(parent)
    expect(name).toMatch(new RegExp(`^task-outcome-${process.pid}-\\d+$`))
    const dir = path.join(parent, name!)
    expect(read(path.join(dir, 'pids.max'))).toBe('77')
    expect(read(path.join(dir, 'memory.max'))).toBe(BYTES)
    expect(existsSync(path.join(dir, 'memory.swap.max'))).toBe(false)
    expect(existsSync(path.join(dir, 'cpu.max'))).toBe(false)
    expect(cgroup!.join).toStrictEqual([path.join(dir, 'cgroup.procs')])
  })

  test('gives each run a cgroup of its own name', () => {
    const parent = v2Tree('memory pids')
    RunCgroup.create(LIMITS, root, own)
    RunCgroup.create(LIMITS, root, own)
    expect(made(parent)).toHaveLength(2)
  })

  test('makes a v2 sibling when only the parent delegates (a cgroup with processes cannot)', () => {
    const parent = v2Tree('memory pids', path.dirname(own.get('unified')!))
    expect(RunCgroup.create(LIMITS, root, own)?.kind).toBe('v2')
    expect(made(parent)).toHaveLength(1)
  })

  test.each([['pids'], ['memory'], ['cpu io'], ['']])('makes no v2 cgroup where the tree delegates only %j', (controllers) => {
    const parent = v2Tree(controllers)
    const cgroup = RunCgroup.create(LIMITS, root, own)
    expect(cgroup).toBeNull()
    expect(made(parent)).toStrictEqual([])
  })

  test('makes a v2 child of the root where the harness names no unified cgroup', () => {
    const top = v2Tree('memory pids', '/')
    const cgroup = RunCgroup.create(LIMITS, root, new Map([...own].filter(([controller]) => controller !== 'unified')))
    expect(cgroup?.kind).toBe('v2')
    expect(made(top)).toHaveLength(1)
  })

  test('makes no v2 cgroup without cgroup.controllers at the root (no v2 tree there)', () => {
    const parent = v2Tree('memory pids')
    unlinkSync(path.join(root, 'cgroup.controllers'))
    expect(RunCgroup.create(LIMITS, root, own)).toBeNull()
    expect(made(parent)).toStrictEqual([])
  })

  test('makes v1 pids and memory cgroups where no v2 one can be made', () => {
    v1Tree()
    const cgroup = RunCgroup.create({ ...LIMITS, cpu: 1.5 }, root, own)
    expect(cgroup?.kind).toBe('v1')
    const pidsParent = path.join(root, 'pids', own.get('pids')!)
    const memoryParent = path.join(root, 'memory', own.get('memory')!)
    const [name] = made(pidsParent)
    expect(made(memoryParent)).toStrictEqual([name])
    expect(read(path.join(pidsParent, name!, 'pids.max'))).toBe('77')
    expect(read(path.join(memoryParent, name!, 'memory.limit_in_bytes'))).toBe(BYTES)
    expect(existsSync(path.join(memoryParent, name!, 'memory.memsw.limit_in_bytes'))).toBe(false)
    const join = [path.join(pidsParent, name!, 'cgroup.procs'), path.join(memoryParent, name!, 'cgroup.procs')]
    const cpu = path.join(root, 'cpu', own.get('cpu')!, name!)
    expect(read(path.join(cpu, 'cpu.cfs_period_us'))).toBe('100000')
    expect(read(path.join(cpu, 'cpu.cfs_quota_us'))).toBe('150000')
    join.push(path.join(cpu, 'cgroup.procs'))
    expect(cgroup!.join).toStrictEqual(join)
  })

  test('makes the v1 pids and memory cgroups alone where the harness is in no cpu hierarchy, a CPU limit asked or not', () => {
    v1Tree()
    const noCpu = new Map([...own].filter(([controller]) => controller !== 'cpu'))
    const cgroup = RunCgroup.create({ ...LIMITS, cpu: 1.5 }, root, noCpu)
    expect(cgroup?.kind).toBe('v1')
    expect(cgroup!.join.map((file) => path.relative(root, file))).toStrictEqual(
      ['pids', 'memory'].map((hierarchy) => path.join(hierarchy, 'harness', made(path.join(root, 'pids', 'harness'))[0]!, 'cgroup.procs')),
    )
    expect(made(path.join(root, 'cpu', 'harness'))).toStrictEqual([])
  })

  test('makes no v1 cpu cgroup without a CPU limit', () => {
    v1Tree()
    const cgroup = RunCgroup.create(LIMITS, root, own)
    expect(made(path.join(root, 'cpu', own.get('cpu')!))).toStrictEqual([])
    expect(cgroup!.join).toHaveLength(2)
  })

  test('makes no v1 cgroup without the pids hierarchy, and leaves no pids cgroup when the memory one fails', () => {
    v1Tree()
    rmSync(path.join(root, 'pids', 'cgroup.procs'))
    expect(RunCgroup.create(LIMITS, root, own)).toBeNull()
    write(path.join(root, 'pids', 'cgroup.procs'), '')
    rmSync(path.join(root, 'memory'), { recursive: true })
    write(path.join(root, 'memory'), 'no hierarchy')
    expect(RunCgroup.create(LIMITS, root, own)).toBeNull()
    expect(made(path.join(root, 'pids', own.get('pids')!))).toStrictEqual([])
  })

  test('makes no v1 cgroup when the pids one cannot be made', () => {
    write(path.join(root, 'pids', 'cgroup.procs'), '')
    expect(RunCgroup.create(LIMITS, root, own)).toBeNull()
  })
})

describe('RunCgroup.hit', () => {
  test.each([
    ['nothing', {}, null],
    ['the memory limit merely reached', { 'memory.events': 'low 0\nhigh 0\nmax 12\noom 1\noom_kill 0\n' }, null],
    ['an out-of-memory kill', { 'memory.events': 'max 3\noom 1\noom_kill 1\n' }, 'memory'],
    ['the process limit', { 'pids.events': 'max 5\n' }, 'processes'],
    ['the process limit never reached', { 'pids.events': 'max 0\n' }, null],
    ['both, memory first', { 'memory.events': 'oom_kill 2\n', 'pids.events': 'max 5\n' }, 'memory'],
    ['lines that are no pair', { 'pids.events': 'max\n\n  max 4  \nmax 1 2\n' }, 'processes'],
    ['a line of three words, which is no pair', { 'pids.events': 'max 0\nmax 9 9\n' }, null],
    ['a pair whatever its spacing', { 'pids.events': '\tmax  \t 4 \r\n' }, 'processes'],
  ])('in v2 names %s', (_what, files, hit) => {
    const parent = v2Tree('memory pids')
    const cgroup = RunCgroup.create(LIMITS, root, own)!
    const dir = path.join(parent, made(parent)[0]!)
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text)
    expect(cgroup.hit()).toBe(hit)
  })

  test('in v1 reads the out-of-memory kills from memory.oom_control', () => {
    v1Tree()
    const cgroup = RunCgroup.create(LIMITS, root, own)!
    const name = made(path.join(root, 'pids', own.get('pids')!))[0]!
    const memory = path.join(root, 'memory', own.get('memory')!, name)
    writeFileSync(path.join(memory, 'memory.events'), 'oom_kill 1\n')
    expect(cgroup.hit()).toBeNull()
    writeFileSync(path.join(memory, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 1\n')
    expect(cgroup.hit()).toBe('memory')
  })
})

describe('RunCgroup.release', () => {
  test('removes the run’s cgroup, and is harmless once it is gone', () => {
    const parent = v2Tree('memory pids')
    const cgroup = RunCgroup.create(LIMITS, root, own)!
    const dir = path.join(parent, made(parent)[0]!)
    for (const file of readdirSync(dir)) unlinkSync(path.join(dir, file))
    cgroup.release()
    expect(existsSync(dir)).toBe(false)
    expect(() => cgroup.release()).not.toThrow()
  })

  test('gives up at once on a cgroup it cannot remove for a reason other than being busy', () => {
    const parent = v2Tree('memory pids')
    const cgroup = RunCgroup.create(LIMITS, root, own)!
    const dir = path.join(parent, made(parent)[0]!)
    const started = Date.now()
    cgroup.release()
    expect(Date.now() - started).toBeLessThan(500)
    expect(existsSync(dir)).toBe(true)
  })

  test('removes each v1 cgroup of the run', () => {
    v1Tree()
    const cgroup = RunCgroup.create({ ...LIMITS, cpu: 1 }, root, own)!
    const dirs = cgroup.join.map((file) => path.dirname(file))
    for (const dir of dirs) for (const file of readdirSync(dir)) unlinkSync(path.join(dir, file))
    cgroup.release()
    for (const dir of dirs) expect(existsSync(dir)).toBe(false)
  })
})

describe.runIf(process.getuid?.() === 0 && existsSync('/sys/fs/cgroup'))('a run cgroup of the machine', () => {
  test('holds its limits, takes the processes that join it, and is removed once they are gone', (ctx) => {
    const cgroup = RunCgroup.create({ processes: 3, memoryMb: 64, diskMb: 8, cpu: null })
    // Under root, a v1 pids hierarchy always gives one (this CI's machine): there the test may not skip.
    if (existsSync('/sys/fs/cgroup/pids/cgroup.procs')) expect(cgroup, 'root with a v1 pids hierarchy makes a run cgroup').not.toBeNull()
    if (cgroup === null) return ctx.skip('this machine gives the harness no cgroup to make (no delegated v2 tree, no v1 pids hierarchy)')
    try {
      const dirs = cgroup.join.map((file) => path.dirname(file))
      expect(dirs.map((dir) => (cgroup.kind === 'v2' || dir.includes('/pids/') ? read(path.join(dir, 'pids.max')).trim() : 'memory'))).toContain('3')
      const memory = dirs.map((dir) => path.join(dir, cgroup.kind === 'v2' ? 'memory.max' : 'memory.limit_in_bytes')).find((file) => existsSync(file))!
      expect(read(memory).trim()).toBe(String(64 * 1024 * 1024))
      for (const swap of dirs.flatMap((dir) => [path.join(dir, 'memory.swap.max'), path.join(dir, 'memory.memsw.limit_in_bytes')]).filter((file) => existsSync(file))) {
        expect(read(swap).trim(), swap).toBe(swap.endsWith('swap.max') ? '0' : String(64 * 1024 * 1024))
      }
      const script = `for f in "$@"; do echo $$ > "$f"; done; for i in 1 2 3 4 5; do sleep 1 & done 2>/dev/null; wait`
      spawnSync('/bin/sh', ['-c', script, 'sh', ...cgroup.join], { timeout: 10_000 })
      expect(cgroup.hit()).toBe('processes')
    } finally {
      cgroup.release()
    }
    for (const file of cgroup.join) expect(existsSync(path.dirname(file))).toBe(false)
  })
})
