import { existsSync, realpathSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { DEFAULT_LIMITS, type SandboxLimits } from '../../src/sandbox/limits.ts'
import type { MountedOverlay } from '../../src/sandbox/overlay.ts'
import { isolatedCommandLine, isolatedSandbox, RunSandbox, SANDBOX_HOST_PATH, type RunSandboxOptions } from '../../src/sandbox/sandbox.ts'

// A run's sandbox as the command lines it builds (nothing is started here but its proxy and its cgroup): what each
// option and each process's own request adds to bubblewrap's line. The sandbox itself at work is `sandbox/command`'s,
// `sandbox/visibility`'s and `sandbox/agents`'s.

let dir: string
const opened: RunSandbox[] = []

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-run-sandbox-'))
})
afterEach(async () => {
  for (const sandbox of opened.splice(0)) await sandbox.close()
  await rm(dir, { recursive: true, force: true })
})

async function open(options: Partial<RunSandboxOptions> = {}): Promise<RunSandbox> {
  const sandbox = await RunSandbox.open({ allow: [], writable: [], readOnly: [], ...options })
  opened.push(sandbox)
  return sandbox
}

const folder = async (name: string) => mkdtemp(path.join(dir, `${name}-`))
/**
 * Whether `args` binds something at `target` with `flag` (`--bind`, `--ro-bind`). The source is the folder itself,
 * or its staged copy where the sandbox's user cannot reach it (these tests' folders are under a 0700 one).
 */
const bindsAt = (args: readonly string[], flag: string, target: string) => args.some((arg, i) => arg === flag && args[i + 2] === target)
/** The value bubblewrap sets for `name` (`--setenv name value`), if any. */
function setenv(args: readonly string[], name: string): string | undefined {
  const at = args.findIndex((arg, i) => arg === '--setenv' && args[i + 1] === name)
  return at === -1 ? undefined : args[at + 2]
}
/** Whether `args` holds `run` in a row. */
const holds = (args: readonly string[], ...run: string[]) => args.some((_, i) => run.every((part, j) => args[i + j] === part))
/** What bubblewrap runs: the arguments after its last `--`. */
const inner = (args: readonly string[]) => args.slice(args.lastIndexOf('--') + 1)
/** `/bin/true` as the line names it (its installation resolved: /bin is a link on merged-/usr systems). */
const TRUE = realpathSync('/bin/true')

/** A mounted overlay as the sandbox reads it (its holder's pid, its target, whether its tmpfs is full). */
const overlay = (full: boolean): MountedOverlay => ({ pid: 4242, layers: { target: '/work/ws' }, diskFull: () => full }) as unknown as MountedOverlay

/** Whether a read-only bind's target holds `file`. */
const covers = (args: readonly string[], file: string) => args.some((arg, i) => arg === '--ro-bind' && i + 2 < args.length && file.startsWith(`${args[i + 2]}/`))

const command = { file: '/bin/true', args: [], cwd: '/', env: { MINE: 'yes' } }

describe('RunSandbox.commandLine', () => {
  test("gives the process the run's network: the proxy's variables beside its own, and the bridges started first", async () => {
    const sandbox = await open()
    const line = await sandbox.commandLine(command)
    expect(line.env).toStrictEqual({ PATH: SANDBOX_HOST_PATH })
    expect(setenv(line.args, 'MINE')).toBe('yes')
    expect(setenv(line.args, 'HTTPS_PROXY')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(setenv(line.args, 'NO_PROXY')).toBe('127.0.0.1,localhost,::1')
    const run = inner(line.args)
    expect([run[0], run[1], run.slice(3)]).toStrictEqual(['/bin/sh', '-c', ['sandbox', TRUE]])
    expect(run[2]).toMatch(/^socat TCP-LISTEN:\d+,bind=127\.0\.0\.1/)
  })

  test('without the network (network: false) neither the proxy’s variables nor the bridges', async () => {
    const sandbox = await open()
    const line = await sandbox.commandLine({ ...command, network: false })
    expect(setenv(line.args, 'MINE')).toBe('yes')
    expect(setenv(line.args, 'HTTPS_PROXY')).toBeUndefined()
    expect(inner(line.args)).toStrictEqual([TRUE])
  })

  test("binds the run's folders and the process's own: read-only, writable, at another path, and inside the workspace", async () => {
    const [runRo, ownRo, runRw, ownRw, source] = await Promise.all(['run-ro', 'own-ro', 'run-rw', 'own-rw', 'source'].map(folder))
    const sandbox = await open({
      readOnly: [runRo!],
      writable: [runRw!],
      writableMounts: [{ source: source!, target: '/home/agent', onHost: source! }],
      mounts: [{ source: runRo!, target: '/work/ws/node_modules' }],
    })
    const { args } = await sandbox.commandLine({ ...command, readOnly: [ownRo!], writable: [ownRw!] })
    expect(bindsAt(args, '--ro-bind', runRo!)).toBe(true)
    expect(bindsAt(args, '--ro-bind', ownRo!)).toBe(true)
    expect(bindsAt(args, '--bind', runRw!)).toBe(true)
    expect(bindsAt(args, '--bind', ownRw!)).toBe(true)
    expect(bindsAt(args, '--bind', '/home/agent')).toBe(true)
    expect(bindsAt(args, '--ro-bind', '/work/ws/node_modules')).toBe(true)
  })

  test("mounts the command's own installation read-only, its interpreter's and its script's", async () => {
    const { args } = await (await open()).commandLine({ ...command, file: process.execPath, args: ['--version'] })
    expect(covers(args, process.execPath)).toBe(true)
  })

  test("enters the run's overlay: the holder's namespace, the workspace bound", async () => {
    const line = await (await open({ overlay: overlay(false) })).commandLine(command)
    expect(line.file).toBe('nsenter')
    expect(line.args.slice(0, 2)).toStrictEqual(['--target', '4242'])
    expect(bindsAt(line.args, '--bind', '/work/ws')).toBe(true)
  })

  test('without an overlay it enters none', async () => {
    const line = await (await open()).commandLine(command)
    expect(line.file).not.toBe('nsenter')
  })

  test('limits every process by the run’s limits: its tmpfs sizes, and its cgroup where there is one, else rlimits inside', async () => {
    const limits: SandboxLimits = { ...DEFAULT_LIMITS, processes: 77, diskMb: 33 }
    const sandbox = await open({ limits })
    const { args } = await sandbox.commandLine(command)
    expect(holds(args, '--size', String(33 * 1024 * 1024), '--tmpfs', '/tmp')).toBe(true)
    if (sandbox.limitedBy === 'rlimits') expect(args).toContain('--nproc=77:77')
    else expect(args.some((arg) => arg.endsWith('/cgroup.procs'))).toBe(true)
    const defaults = await (await open()).commandLine(command)
    expect(holds(defaults.args, '--size', String(DEFAULT_LIMITS.diskMb * 1024 * 1024), '--tmpfs', '/tmp')).toBe(true)
  })

  test("binds for writing exactly the run's writable folders when the process asks for none of its own", async () => {
    const runRw = await folder('run-rw')
    const { args } = await (await open({ writable: [runRw] })).commandLine(command)
    expect(args.flatMap((arg, i) => (arg === '--bind' ? [args[i + 2]] : []))).toStrictEqual([runRw])
  })
})

describe('RunSandbox', () => {
  test('starts each process from / (its own folder is set inside)', async () => {
    const line = await (await open()).startLine(command)
    expect(line.cwd).toBe('/')
    expect(line.env).toStrictEqual({ PATH: SANDBOX_HOST_PATH })
  })

  test('is a bubblewrap environment, limited as its line says: the cgroup it joins (v1 or v2), or rlimits without one', async () => {
    const sandbox = await open()
    expect(sandbox.label).toBe('bubblewrap')
    const procs = (await sandbox.commandLine(command)).args.filter((arg) => arg.endsWith('/cgroup.procs'))
    const expected = procs.length === 0 ? 'rlimits' : procs.some((file) => file.startsWith('/sys/fs/cgroup/pids/')) ? 'cgroup v1' : 'cgroup v2'
    expect(sandbox.limitedBy).toBe(expected)
  })

  test('reports the disk limit when the overlay’s tmpfs is full, and no limit otherwise', async () => {
    expect((await open({ overlay: overlay(true) })).limitHit()).toBe('disk')
    expect((await open({ overlay: overlay(false) })).limitHit()).toBeNull()
    expect((await open()).limitHit()).toBeNull()
    expect((await open({ overlay: overlay(true) })).overlay?.pid).toBe(4242)
  })

  test('has refused nothing yet: reads and writes not observed (null), no connection refused, nothing reached', async () => {
    expect((await open()).denials).toStrictEqual({ denied: { read: null, write: null, network: 0 }, examples: [], egress: [] })
  })

  test('close stops its proxy and removes its cgroup', async () => {
    const sandbox = await RunSandbox.open({ allow: [], writable: [], readOnly: [] })
    const { args } = await sandbox.commandLine(command)
    const procs = args.filter((arg) => arg.endsWith('/cgroup.procs'))
    const socket = path.join(args[args.indexOf('/run/task-outcome-net') - 1]!, 'proxy.sock')
    await sandbox.close()
    for (const file of procs) expect(existsSync(path.dirname(file))).toBe(false)
    const refused = await new Promise<boolean>((resolve) => {
      const client = net.connect(socket, () => resolve(false))
      client.once('error', () => resolve(true))
    })
    expect(refused).toBe(true)
  })
})

describe('isolatedCommandLine and isolatedSandbox', () => {
  test('have no network, bind what they are given and the command’s installation', async () => {
    const ro = await folder('ro')
    const line = isolatedCommandLine({ readOnly: [ro], writable: [] }, { ...command, file: process.execPath, args: [] })
    expect(bindsAt(line.args, '--ro-bind', ro)).toBe(true)
    expect(inner(line.args)).toStrictEqual([realpathSync(process.execPath)])
    expect(covers(line.args, realpathSync(process.execPath))).toBe(true)
  })

  test('as an environment: bubblewrap, from /, with only the host PATH', async () => {
    const environment = isolatedSandbox({ readOnly: [], writable: [] })
    expect(environment.label).toBe('bubblewrap')
    const line = await environment.startLine(command)
    expect(line).toMatchObject({ cwd: '/', env: { PATH: SANDBOX_HOST_PATH } })
    expect(inner(line.args)).toStrictEqual([TRUE])
  })
})
