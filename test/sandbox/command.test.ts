import { execFile, spawnSync } from 'node:child_process'
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { PROXY_SOCKET, SANDBOX_SOCKET_DIR, sandboxCommandLine, SYSTEM_READ_ONLY } from '../../src/sandbox/command.ts'
import { DEFAULT_SANDBOX_UID } from '../../src/sandbox/identity.ts'
import { SandboxNetwork } from '../../src/sandbox/network.ts'
import type { SandboxSpec } from '../../src/sandbox/spec.ts'

// The bubblewrap command line of one sandboxed process, run for real (bwrap, as root: the sandbox uid): what the
// process is, sees, may write and reach, read from inside.

const root = process.getuid?.() === 0
const HOST_PATH = '/usr/sbin:/usr/bin:/sbin:/bin'
let dir: string
let savedUid: string | undefined

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'command-test-')))
  savedUid = process.env.TASK_OUTCOME_SANDBOX_UID
  delete process.env.TASK_OUTCOME_SANDBOX_UID
})
afterEach(() => {
  if (savedUid === undefined) delete process.env.TASK_OUTCOME_SANDBOX_UID
  else process.env.TASK_OUTCOME_SANDBOX_UID = savedUid
  rmSync(dir, { recursive: true, force: true })
})

const none = (fields: Partial<SandboxSpec> = {}): SandboxSpec => ({ writable: [], readOnly: [], network: 'none', ...fields })

/** Runs `script` (sh) in the sandbox `spec` describes; its output, its exit code. */
function inside(spec: SandboxSpec, script: string, env: Record<string, string> = { PATH: HOST_PATH }, cwd = '/') {
  const line = sandboxCommandLine(spec, { file: '/bin/sh', args: ['-c', script], cwd, env })
  const result = spawnSync(line.file, line.args, { encoding: 'utf8', env: { PATH: HOST_PATH }, timeout: 60_000 })
  return { stdout: result.stdout.trim(), stderr: result.stderr.trim(), status: result.status, line }
}

describe('the sandboxed process', () => {
  test('is uid and gid 0 in its own namespaces, named sandbox, with no capability, no new privileges and the syscall filter', () => {
    const { stdout, status } = inside(none(), 'id -u; id -g; hostname; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\\t " " "')
    expect(status).toBe(0)
    expect(stdout.split('\n')).toStrictEqual(['0', '0', 'sandbox', 'CapEff: 0000000000000000', 'NoNewPrivs: 1', 'Seccomp: 2'])
  })

  test.runIf(root)('as root, runs as the sandbox uid on the host, not as root', () => {
    const { line } = inside(none(), 'true')
    const started = [line.file, ...line.args]
    const setpriv = started.indexOf('setpriv')
    expect(started.slice(setpriv, setpriv + 6)).toStrictEqual(['setpriv', `--reuid=${DEFAULT_SANDBOX_UID}`, `--regid=${DEFAULT_SANDBOX_UID}`, '--clear-groups', '--', 'bwrap'])
    const { stdout } = inside(none(), 'cat /proc/self/uid_map | tr -s " " " "')
    expect(stdout).toBe(`0 ${DEFAULT_SANDBOX_UID} 1`)
  })

  test('gets exactly the environment it is given, and starts in the folder it is given', () => {
    const work = path.join(dir, 'work')
    mkdirSync(work)
    chmodSync(dir, 0o755)
    const { stdout } = inside(none({ readOnly: [work] }), 'env | sort; pwd', { PATH: HOST_PATH, ONE: 'a b', TWO: '' }, work)
    // What sh adds of its own: PWD, and nothing else of the host's.
    expect(stdout.split('\n')).toStrictEqual(['ONE=a b', `PATH=${HOST_PATH}`, `PWD=${work}`, 'TWO=', work])
  })

  test('sees the system folders read-only, links kept links, and none of the host’s other folders', () => {
    const { stdout } = inside(
      none(),
      `for d in ${SYSTEM_READ_ONLY.join(' ')}; do if [ -L "$d" ]; then echo "$d link $(readlink "$d")"; elif [ -d "$d" ]; then echo "$d dir"; fi; done
touch /usr/x 2>/dev/null && echo "wrote /usr"; [ -e /root ] && echo "sees /root"; [ -e /work ] && echo "sees /work"; ls /run`,
    )
    const expected = SYSTEM_READ_ONLY.flatMap((d) => {
      try {
        return [lstatSync(d).isSymbolicLink() ? `${d} link ${readlinkSync(d)}` : `${d} dir`]
      } catch {
        return []
      }
    })
    expect(stdout.split('\n').filter(Boolean)).toStrictEqual(expected)
  })

  test('has /tmp and /dev/shm as fresh tmpfs of the disk limit, and /run empty', () => {
    writeFileSync(path.join(os.tmpdir(), `command-test-host-${process.pid}`), 'host')
    try {
      const { stdout } = inside(
        none({ limits: { processes: 64, memoryMb: 128, diskMb: 3, cpu: null } }),
        `ls -A /tmp | wc -l; ls -A /run | wc -l; awk '$2 == "/tmp" || $2 == "/dev/shm" {print $2, $3, $4}' /proc/mounts`,
      )
      const lines = stdout.split('\n')
      expect(lines.slice(0, 2)).toStrictEqual(['0', '0'])
      expect(lines.slice(2).map((line) => line.replace(/,.*size=(\d+k).*/, ' $1'))).toStrictEqual(['/tmp tmpfs rw 3072k', '/dev/shm tmpfs rw 3072k'])
    } finally {
      rmSync(path.join(os.tmpdir(), `command-test-host-${process.pid}`), { force: true })
    }
  })

  test('without a cgroup, runs under the rlimits of its limits; with one, joins it and sets none', () => {
    const limits = { processes: 77, memoryMb: 96, diskMb: 8, cpu: null }
    const readLimits = `awk '/^Max processes/ {print $3, $4} /^Max data size/ {print $4, $5}' /proc/self/limits`
    const rlimited = inside(none({ limits }), readLimits)
    expect(rlimited.stdout.split('\n')).toStrictEqual([`${96 * 1024 * 1024} ${96 * 1024 * 1024}`, '77 77'])
    const procs = [path.join(dir, 'a.procs'), path.join(dir, 'b.procs')]
    for (const file of procs) writeFileSync(file, '')
    const joined = inside(none({ limits, cgroup: procs }), readLimits)
    expect(joined.stdout.split('\n')[1]).not.toBe('77 77')
    for (const file of procs) expect(readFileSync(file, 'utf8')).toMatch(/^\d+\n$/)
  })

  test('takes the default limits without any: 4 GiB tmpfs, 1024 processes', () => {
    const { stdout } = inside(none(), `awk '/^Max processes/ {print $3}' /proc/self/limits; awk '$2 == "/tmp" {print $4}' /proc/mounts`)
    const [processes, options] = stdout.split('\n')
    expect(processes).toBe('1024')
    expect(options).toContain(`size=${4096 * 1024}k`)
  })

  test('sees its read-only folders at their paths, unwritable, skipping the missing and binding each once', () => {
    const ro = path.join(dir, 'ro')
    mkdirSync(ro)
    writeFileSync(path.join(ro, 'file'), 'visible')
    const { stdout, line } = inside(
      none({ readOnly: [ro, ro, path.join(dir, 'missing')] }),
      `cat ${ro}/file; echo; touch ${ro}/new 2>/dev/null || echo refused; [ -e ${dir}/missing ] || echo missing`,
    )
    expect(stdout.split('\n')).toStrictEqual(['visible', 'refused', 'missing'])
    expect(line.args.filter((arg) => arg === ro || arg.startsWith('/tmp/task-outcome-stage/')).length).toBeGreaterThanOrEqual(1)
  })

  test('a folder both read-only and writable is read-only: the read-only bind comes first', () => {
    const both = path.join(dir, 'both')
    mkdirSync(both)
    const { stdout } = inside(none({ writable: [both], readOnly: [both] }), `touch ${both}/out 2>/dev/null || echo refused`)
    expect(stdout).toBe('refused')
  })

  test('writes its writable folders at their paths, and the files it writes are the sandbox uid’s on the host', () => {
    const rw = path.join(dir, 'rw')
    mkdirSync(rw)
    const { stdout, line } = inside(none({ writable: [rw, rw] }), `echo hi > ${rw}/out && echo wrote`)
    expect(stdout).toBe('wrote')
    expect(line.args.filter((arg) => arg === '--bind')).toHaveLength(1)
    expect(readFileSync(path.join(rw, 'out'), 'utf8')).toBe('hi\n')
    if (root) expect(statSync(path.join(rw, 'out')).uid).toBe(DEFAULT_SANDBOX_UID)
  })

  test('binds a writable mount at its target, and a read-only mount at its target after the writable binds', () => {
    const home = path.join(dir, 'home')
    const work = path.join(dir, 'work')
    const deps = path.join(dir, 'deps')
    mkdirSync(home)
    mkdirSync(path.join(work, 'node_modules'), { recursive: true })
    mkdirSync(deps)
    writeFileSync(path.join(deps, 'dep.js'), 'dep')
    const spec = none({
      writable: [work],
      writableMounts: [{ source: home, target: '/home/agent', onHost: home }],
      mounts: [{ source: deps, target: path.join(work, 'node_modules') }],
    })
    const { stdout } = inside(
      spec,
      `echo x > /home/agent/h && echo home; cat ${work}/node_modules/dep.js; echo; touch ${work}/node_modules/new 2>/dev/null || echo ro; echo y > ${work}/w && echo work`,
    )
    expect(stdout.split('\n')).toStrictEqual(['home', 'dep', 'ro', 'work'])
    expect(readFileSync(path.join(home, 'h'), 'utf8')).toBe('x\n')
    if (root) expect(statSync(home).uid).toBe(DEFAULT_SANDBOX_UID)
  })

  test('binds a writable mount once per target, the first one given', () => {
    const first = path.join(dir, 'first')
    const second = path.join(dir, 'second')
    mkdirSync(first)
    mkdirSync(second)
    writeFileSync(path.join(first, 'which'), 'first')
    writeFileSync(path.join(second, 'which'), 'second')
    const spec = none({
      writableMounts: [
        { source: first, target: '/home/agent', onHost: first },
        { source: second, target: '/home/agent', onHost: second },
      ],
    })
    expect(inside(spec, 'cat /home/agent/which').stdout).toBe('first')
    if (root) expect(statSync(second).uid).toBe(0)
  })

  test.runIf(root)('stages what the sandbox uid cannot reach by path (a 0700 folder), and binds straight what it can', () => {
    const hidden = path.join(dir, 'hidden')
    mkdirSync(hidden)
    writeFileSync(path.join(hidden, 'file'), 'staged')
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    const staged = inside(none({ readOnly: [hidden] }), `cat ${hidden}/file`)
    expect(staged.stdout).toBe('staged')
    expect(staged.line.file).toBe('unshare')
    expect(staged.line.args.slice(0, 4)).toStrictEqual(['--mount', '--propagation', 'private', '--'])
    chmodSync(dir, 0o755)
    const direct = inside(none({ readOnly: [hidden] }), `cat ${hidden}/file`)
    expect(direct.stdout).toBe('staged')
    expect(direct.line.file).toBe('/bin/sh')
  })

  test('runs a command given by a link as the file it points to', () => {
    const line = sandboxCommandLine(none(), { file: '/bin/sh', args: ['-c', 'true'], cwd: '/', env: {} })
    expect(line.args).toContain(realpathSync('/bin/sh'))
    const relative = sandboxCommandLine(none(), { file: 'sh', args: [], cwd: '/', env: {} })
    expect(relative.args.at(-1)).toBe('sh')
    // A relative path is left for the sandbox's PATH and cwd, even when it names a file from the harness's cwd.
    const fromHere = path.relative(process.cwd(), '/bin/sh')
    expect(sandboxCommandLine(none(), { file: fromHere, args: [], cwd: '/', env: {} }).args.at(-1)).toBe(fromHere)
  })

  test('has only loopback without a network', () => {
    const { stdout } = inside(none(), "awk 'NR > 2 {print $1}' /proc/net/dev | tr -d ':'")
    expect(stdout).toBe('lo')
  })

  test.runIf(root)('enters the overlay holder’s mount namespace, and binds its workspace read-write', () => {
    const line = sandboxCommandLine(none({ overlay: { pid: 4242, target: '/work/x' } }), { file: '/bin/sh', args: [], cwd: '/', env: {} })
    expect(line.file).toBe('nsenter')
    expect(line.args.slice(0, 5)).toStrictEqual(['--target', '4242', '--mount', '--', '/bin/sh'])
    const bwrap = line.args.slice(line.args.indexOf('bwrap'))
    const at = bwrap.indexOf('/work/x')
    expect(bwrap.slice(at - 1, at + 2)).toStrictEqual(['--bind', '/work/x', '/work/x'])
  })
})

describe('the sandboxed process’s network', () => {
  let upstream: http.Server
  let port: number
  let network: SandboxNetwork
  beforeAll(async () => {
    upstream = http.createServer((request, response) => response.end(`model saw ${request.url}`))
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()))
    port = (upstream.address() as AddressInfo).port
    network = await SandboxNetwork.start([])
  })
  afterAll(async () => {
    await network.close()
    await new Promise((resolve) => upstream.close(resolve))
  })

  test('reaches its forwarded loopback port and the proxy at 127.0.0.1 inside, through the sockets bound read-only', async () => {
    const spec = none({ network: await network.spec([port]) })
    const request = (to: number, line: string) =>
      `exec 3<>/dev/tcp/127.0.0.1/${to} && printf '${line}\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n' >&3 && timeout 5 cat <&3 | tail -n 1; echo\n`
    const line = sandboxCommandLine(spec, {
      file: '/bin/bash',
      args: [
        '-c',
        `${request(port, 'GET /v1 HTTP/1.0')}${request(3128, 'GET http://example.com/ HTTP/1.0')}ls ${SANDBOX_SOCKET_DIR}; touch ${SANDBOX_SOCKET_DIR}/x 2>/dev/null || echo ro`,
      ],
      cwd: '/',
      env: { PATH: HOST_PATH },
    })
    // Asynchronously: the forwarders and the proxy answer from this process's event loop.
    const result = await new Promise<string>((resolve) => execFile(line.file, line.args, { env: { PATH: HOST_PATH }, timeout: 60_000 }, (_error, stdout) => resolve(stdout)))
    const lines = result.split('\n').filter((text) => text !== '')
    expect(lines).toStrictEqual([`model saw /v1`, "task-outcome sandbox: example.com is not in the experiment's sandbox.allow", `${port}.sock`, PROXY_SOCKET, 'ro'])
    expect(network.denials.count).toBe(1)
  })
})
