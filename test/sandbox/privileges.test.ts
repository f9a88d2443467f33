import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { DEFAULT_SANDBOX_UID } from '../../src/sandbox/index.ts'
import { hostileProject, tagged } from './hostile-agent.ts'

// Root inside the sandbox is nobody outside: what a hostile agent holding uid 0 inside can still do, through the
// real path (hostile-agent.ts). CI runs as root, where these matter most; run as a user they check the same walls.
const root = process.getuid?.() === 0

/** A python3 script (written inside) printing the outcome of ptrace, pidfd_getfd and process_vm_readv of its argument. */
const TRACER = `cat > /tmp/trace.py <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
target = int(sys.argv[1])
def report(name, result):
    print(name, 'ok' if result >= 0 else os.strerror(ctypes.get_errno()), flush=True)
report('PTRACE', libc.ptrace(16, target, 0, 0))  # PTRACE_ATTACH
report('SEIZE', libc.ptrace(0x4206, target, 0, 0))  # PTRACE_SEIZE
pidfd = libc.syscall(434, target, 0)  # pidfd_open
report('PIDFD_OPEN', pidfd)
report('PIDFD_GETFD', libc.syscall(438, pidfd, 1, 0))  # the target's stdout
buf = ctypes.create_string_buffer(8)
local = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 8)
report('VM_READV', libc.syscall(310, target, local, 1, local, 1, 0))
PY`

describe('a sandboxed agent holding uid 0 inside', () => {
  test('has no capability, no_new_privs and the syscall filter, and is an unprivileged uid on the host', async () => {
    const project = await hostileProject(`
grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status | tr -d '\\t' | sed 's/^/STATUS /'
echo "INSIDE $(id -u)"
awk '{ print "MAPPED " $2 }' /proc/self/uid_map
node -e 'console.log("NODE " + (1 + 1))'
git init -q g && git -C g -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && echo "GIT $(git -C g rev-list --count HEAD)"
python3 -c 'print("PYTHON", 6 * 7)'
echo right > value.txt`)
    const { transcript, record } = await project.run()
    const status = Object.fromEntries(tagged(transcript, 'STATUS ').map((line) => line.split(':') as [string, string]))
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(status[set], set).toBe('0000000000000000')
    expect(status.NoNewPrivs).toBe('1')
    expect(status.Seccomp).toBe('2')
    expect(tagged(transcript, 'INSIDE ')).toEqual(['0'])
    // The outer uid of the sandbox's user namespace: the sandbox uid when the harness is root, the harness's own otherwise.
    expect(tagged(transcript, 'MAPPED ')).toEqual([String(root ? DEFAULT_SANDBOX_UID : process.getuid!())])
    // The filter leaves what agents run alone: node, git, python (socat carries the proxy of this very run).
    expect(tagged(transcript, 'NODE ')).toEqual(['2'])
    expect(tagged(transcript, 'GIT ')).toEqual(['1'])
    expect(tagged(transcript, 'PYTHON ')).toEqual(['42'])
    expect(record.solved).toBe(true)
  })

  test('cannot remount a read-only bind writable: not its own script, not a PATH folder, not the system', async () => {
    const nodeDir = path.dirname(process.execPath)
    const project = await hostileProject(`
for dir in "$0" "${nodeDir}" /usr /etc; do
  if mount -o remount,bind,rw "$dir" 2>/dev/null; then echo "REMOUNTED $dir"; fi
  if mount --bind /tmp "$dir" 2>/dev/null; then echo "COVERED $dir"; fi
done
if umount -l "${nodeDir}" 2>/dev/null; then echo "UNMOUNTED"; fi
echo 'echo planted' >> "$0" 2>/dev/null && echo "WROTE script"
touch "${nodeDir}/planted-by-agent" 2>/dev/null && echo "WROTE path"
echo 1 > /proc/sys/kernel/sysrq 2>/dev/null && echo "WROTE sysctl"
echo h > /proc/sysrq-trigger 2>/dev/null && echo "WROTE sysrq"
cat /etc/shadow >/dev/null 2>&1 && echo "READ shadow"
unshare -U true 2>/dev/null && echo "UNSHARED user"
unshare -m true 2>/dev/null && echo "UNSHARED mount"
unshare -n true 2>/dev/null && echo "UNSHARED net"
echo "DONE"
echo right > value.txt`)
    const script = path.join(project.root, 'tasks', 'fixture', 'agent.sh')
    const before = await readFile(script, 'utf8')
    const { transcript, record } = await project.run()
    expect(tagged(transcript, 'DONE')).toEqual([''])
    for (const tag of ['REMOUNTED ', 'COVERED ', 'UNMOUNTED', 'WROTE ', 'READ ', 'UNSHARED ']) expect(tagged(transcript, tag), tag).toEqual([])
    expect(await readFile(script, 'utf8')).toBe(before)
    expect(existsSync(path.join(nodeDir, 'planted-by-agent'))).toBe(false)
    expect(record.solved).toBe(true)
  })

  test('cannot ptrace, pidfd_getfd or read the memory of the agent from a process it starts (a hook)', async () => {
    const project = await hostileProject(`
${TRACER}
python3 /tmp/trace.py $$ | sed 's/^/HOOK /'
echo right > value.txt`)
    const { transcript, record } = await project.run()
    const results = Object.fromEntries(tagged(transcript, 'HOOK ').map((line) => [line.split(' ')[0], line.split(' ').slice(1).join(' ')]))
    expect(results.PTRACE).toBe('Operation not permitted')
    expect(results.SEIZE).toBe('Operation not permitted')
    // pidfd_open itself is harmless (it grants nothing without pidfd_getfd); the fd theft is what must fail.
    expect(results.PIDFD_OPEN).toBe('ok')
    expect(results.PIDFD_GETFD).toBe('Operation not permitted')
    expect(results.VM_READV).toBe('Operation not permitted')
    expect(record.solved).toBe(true)
  })
})
