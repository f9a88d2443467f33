import { readdirSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { DEFAULT_LIMITS, RunCgroup } from '../../src/sandbox/index.ts'
import { ExperimentSchema } from '../../src/experiment/schema.ts'
import { ESCAPE_FLOOR, ESCAPED, lowestFree } from '../helpers/free-disk.ts'
import { hostileProject, tagged } from './hostile-agent.ts'

// Limits per run (sandbox.limits), set low, against hostile command agents through the real path. Each agent also
// writes the right answer: a run past a limit is unsolved whatever it left, with the limit named in its record.

const LOW = { processes: 64, memoryMb: 256, diskMb: 64 }

/** Whether this machine gives the harness a cgroup per run (CI as root: yes); without one only rlimits act, unnamed. */
const probe = RunCgroup.create({ ...DEFAULT_LIMITS })
const cgroups = probe !== null
probe?.release()

/** The run cgroups this process left behind (none, once every run's sandbox closed). */
function leftoverCgroups(): string[] {
  const found: string[] = []
  for (const dir of ['/sys/fs/cgroup/pids', '/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
    try {
      found.push(...readdirSync(dir).filter((name) => name.startsWith(`task-outcome-${process.pid}-`)))
    } catch {
      // not this machine's layout
    }
  }
  return found
}

describe('a run with sandbox.limits', () => {
  test('has defaults any real agent run fits, the same in the experiment and the sandbox', () => {
    const spec = ExperimentSchema.parse({ name: 'x', stage: 'example', agent: { kind: 'gold' }, arms: { a: {}, b: {} }, control: 'a', budgetUsd: 1 })
    expect(spec.sandbox).toEqual({ allow: [], limits: DEFAULT_LIMITS })
  })

  test('that forks 1,000 processes ends unsolved at its process limit', async () => {
    const project = await hostileProject(
      `echo right > value.txt
python3 - <<'PY'
import os, time
for i in range(1000):
    try:
        if os.fork() == 0:
            time.sleep(3)
            os._exit(0)
    except OSError as error:
        print('STOPPED', i, error.strerror, flush=True)
        break
else:
    print('FORKED 1000', flush=True)
PY`,
      { sandbox: { allow: [], limits: LOW } },
    )
    const { record, transcript } = await project.run()
    expect(tagged(transcript, 'FORKED ')).toEqual([])
    expect(Number(tagged(transcript, 'STOPPED ')[0]?.split(' ')[0])).toBeLessThan(LOW.processes)
    expect(record.outcome).toBe('unsolved')
    expect(record.solved).toBe(false)
    expect(record.limit).toBe(cgroups ? 'processes' : null)
    expect(leftoverCgroups()).toEqual([])
  })

  test('that allocates 1 GB ends unsolved at its memory limit', async () => {
    const project = await hostileProject(
      `echo right > value.txt
python3 -c "b = b'x' * (1024 ** 3); print('ALLOCATED', len(b))" 2>&1 | tail -1 | sed 's/^/PYTHON /'`,
      { sandbox: { allow: [], limits: LOW } },
    )
    const { record, transcript } = await project.run()
    expect(tagged(transcript, 'ALLOCATED ')).toEqual([])
    expect(record.solved).toBe(false)
    expect(record.limit).toBe(cgroups ? 'memory' : null)
    expect(leftoverCgroups()).toEqual([])
  })

  test("that writes 1 GB ends unsolved at its disk limit, and the machine's disk does not fill", async () => {
    const project = await hostileProject(
      `echo right > value.txt
dd if=/dev/urandom of=big bs=1M count=1024 2>/dev/null; echo "WORKSPACE $(stat -c %s big)"
dd if=/dev/urandom of=/tmp/big bs=1M count=1024 2>/dev/null; echo "TMP $(stat -c %s /tmp/big)"; rm -f /tmp/big
dd if=/dev/urandom of=/dev/shm/big bs=1M count=1024 2>/dev/null; echo "SHM $(stat -c %s /dev/shm/big)"`,
      { sandbox: { allow: [], limits: LOW } },
    )
    const { result, before, lowest } = await lowestFree(project.workspaceRoot, () => project.run())
    const { record, transcript } = result
    for (const where of ['WORKSPACE ', 'TMP ', 'SHM ']) expect(Number(tagged(transcript, where)[0]), where).toBeLessThanOrEqual(LOW.diskMb * 1024 * 1024)
    expect(record.solved).toBe(false)
    expect(record.limit).toBe('disk')
    expect(before - lowest, ESCAPED).toBeLessThan(ESCAPE_FLOOR)
  })
})

describe("a run's HOME", () => {
  test("shares the run's disk limit: a 1 GB write into HOME ends the run unsolved at its disk limit, the machine's disk unchanged", async () => {
    const project = await hostileProject(
      `echo right > value.txt
dd if=/dev/urandom of="$HOME/big" bs=1M count=1024 2>/dev/null; echo "HOME $(stat -c %s "$HOME/big")"`,
      { sandbox: { allow: [], limits: LOW } },
    )
    const { result, before, lowest } = await lowestFree(project.workspaceRoot, () => project.run())
    const { record, transcript } = result
    const written = Number(tagged(transcript, 'HOME ')[0])
    expect(written).toBeGreaterThan(0)
    expect(written).toBeLessThanOrEqual(LOW.diskMb * 1024 * 1024)
    expect(record.solved).toBe(false)
    expect(record.outcome).toBe('unsolved')
    expect(record.limit).toBe('disk')
    expect(before - lowest, ESCAPED).toBeLessThan(ESCAPE_FLOOR)
    // The next run starts as if nothing happened: a fresh HOME with the whole limit free again (it fills as much).
    const next = await project.run(2)
    expect(next.record.limit).toBe('disk')
    expect(Number(tagged(next.transcript, 'HOME ')[0])).toBeGreaterThan(written * 0.9)
  })
})

describe('a workspace that is a plain copy (no overlay on this machine)', () => {
  test("is on the run's disk limit with its HOME: 1 GB written into each ends the run unsolved at its disk limit, the machine's disk unchanged", async () => {
    process.env.TASK_OUTCOME_OVERLAY = 'off'
    try {
      const project = await hostileProject(
        `echo right > value.txt
dd if=/dev/urandom of=big bs=1M count=1024 2>/dev/null; echo "WORKSPACE $(stat -c %s big)"; rm -f big
dd if=/dev/urandom of="$HOME/big" bs=1M count=1024 2>/dev/null; echo "HOME $(stat -c %s "$HOME/big")"`,
        { sandbox: { allow: [], limits: LOW } },
      )
      const { result, before, lowest } = await lowestFree(project.workspaceRoot, () => project.run())
      const { record, transcript } = result
      for (const where of ['WORKSPACE ', 'HOME ']) {
        const written = Number(tagged(transcript, where)[0])
        expect(written, where).toBeGreaterThan(0)
        expect(written, where).toBeLessThanOrEqual(LOW.diskMb * 1024 * 1024)
      }
      expect(record.outcome).toBe('unsolved')
      expect(record.limit).toBe('disk')
      expect(before - lowest, ESCAPED).toBeLessThan(ESCAPE_FLOOR)
    } finally {
      delete process.env.TASK_OUTCOME_OVERLAY
    }
  })
})

describe("a folder task's verify.sh", () => {
  test("runs on the run's disk limit: code under test writing 1 GB into verify.sh's HOME and copy ends the run unsolved at its disk limit, the machine's disk unchanged", async () => {
    // check.sh is the agent's code (a .sh file, not protected): verify.sh runs it.
    const project = await hostileProject(
      `echo right > value.txt
cat > check.sh <<'EOF'
dd if=/dev/zero of="$HOME/big" bs=1M count=1024 2>/dev/null
dd if=/dev/zero of=big bs=1M count=1024 2>/dev/null
exit 0
EOF`,
      { sandbox: { allow: [], limits: LOW }, task: { starting: { 'value.txt': 'wrong\n', 'check.sh': 'exit 0\n' }, verify: 'bash check.sh && grep -qx right value.txt' } },
    )
    const { result, before, lowest } = await lowestFree(project.workspaceRoot, () => project.run())
    expect(result.record).toMatchObject({ outcome: 'unsolved', solved: false, changedFiles: ['check.sh', 'value.txt'], limit: 'disk' })
    expect(before - lowest, ESCAPED).toBeLessThan(ESCAPE_FLOOR)
  })
})
