import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks, type ExperimentFixture } from '../helpers/experiment-fixture.ts'
import { waitFor } from '../helpers/wait-for.ts'

// Real Vitest processes running a real `command` agent (a bash script) that starts a
// long-lived child and a daemon that leaves the process tree (a subshell's `setsid`),
// then Vitest's main process is killed. Processes are found by a tag only this test
// puts in their environment, and by Vitest's session (it is started as a session leader).

interface Proc {
  pid: number
  session: number
  zombie: boolean
}

function processes(): Proc[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return [{ pid: Number(entry), session: Number(fields[3]), zombie: fields[0] === 'Z' || fields[0] === 'X' }]
      } catch {
        return []
      }
    })
}

function carries(pid: number, variable: string, value: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${variable}=${value}`)
  } catch {
    return false
  }
}

/** Live processes of the run: in Vitest's session, or carrying the test's tag. */
function liveProcessesOf(vitestPid: number, tag: string): number[] {
  return processes()
    .filter((proc) => !proc.zombie && (proc.session === vitestPid || carries(proc.pid, 'TEST_TAG', tag)))
    .map((proc) => proc.pid)
}

/** An experiment whose agent starts a child and a daemon outside the tree, then sleeps until killed. */
async function lingeringAgentFixture(sandbox: Record<string, unknown>): Promise<{ fixture: ExperimentFixture; tag: string; workDir: string }> {
  const fixture = await createExperimentFixture(simpleTasks(3, 0.2), {
    agent: { kind: 'command', bin: './agent.sh' },
    arms: { first: {}, second: {} },
    control: 'first',
    seeds: 1,
    timeoutSeconds: 600,
    maxWorkers: 2,
    env: { pass: ['TEST_TAG'] },
    ...sandbox,
  })
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-work-'))
  await fixture.writeScript('agent.sh', 'sleep 300 &\n( setsid sleep 300 & )\nwait')
  return { fixture, tag: randomUUID(), workDir }
}

/** Live processes carrying the test's tag (the agents and what they started). */
function tagged(tag: string): number[] {
  return processes()
    .filter((proc) => !proc.zombie && carries(proc.pid, 'TEST_TAG', tag))
    .map((proc) => proc.pid)
}

describe('no process outlives the Vitest process that started it', () => {
  for (const [label, sandbox] of [
    ['in the sandbox', {}],
    ["with sandbox: 'none' (the watchdog alone)", { sandbox: 'none' }],
  ] as const) {
    test(`${label}: after SIGKILL of Vitest mid-run, no process of the run is left alive, and its workspace folder is gone (polled to a generous deadline)`, async () => {
      const { fixture, tag, workDir } = await lingeringAgentFixture(sandbox)
      const run = fixture.vitest([], { env: { TEST_TAG: tag, TASK_OUTCOME_WORKDIR: workDir } })
      const vitestPid = run.pid!
      // Two agents under way, each with its child and its daemon.
      await waitFor(() => tagged(tag).length >= 6, 'two agents, each with its child and its daemon', 90_000)
      // Vitest's main process and its two workers, in the session Vitest leads.
      expect(processes().filter((proc) => !proc.zombie && proc.session === vitestPid).length).toBeGreaterThanOrEqual(3)
      expect(readdirSync(workDir).filter((entry) => entry.startsWith(`vitest-${vitestPid}-`))).toHaveLength(1)

      process.kill(vitestPid, 'SIGKILL')
      await run
      const leftovers = () => readdirSync(workDir).filter((entry) => entry.startsWith(`vitest-${vitestPid}-`))
      await waitFor(() => liveProcessesOf(vitestPid, tag).length === 0 && leftovers().length === 0, 'the run’s processes and workspace folder to be gone', 20_000).catch(() => {})
      expect(liveProcessesOf(vitestPid, tag)).toEqual([])
      expect(leftovers()).toEqual([])
    })
  }

  test('Ctrl-C says how many runs were recorded and the command that resumes; nothing of the run is left', async () => {
    const fixture = await createExperimentFixture(simpleTasks(3, 0.3), { seeds: 2 })
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-work-'))
    const run = fixture.vitest([], { env: { TASK_OUTCOME_WORKDIR: workDir } })
    await waitFor(async () => (await fixture.runs()).length >= 2, 'two recorded runs', 60_000)
    process.kill(run.pid!, 'SIGINT')
    const result = await run
    const recorded = (await fixture.runs()).length
    expect(recorded).toBeGreaterThanOrEqual(2)
    expect(recorded).toBeLessThan(12)
    expect(result.all).toMatch(new RegExp(`task-outcome · fixture: interrupted\\. \\d+ run\\(s\\) recorded in this invocation, ${recorded} of 12 planned recorded in all`))
    expect(result.all).toContain('Resume with: npx vitest run --project fixture')
    const session = () => processes().filter((proc) => !proc.zombie && proc.session === run.pid)
    await waitFor(() => session().length === 0 && readdirSync(workDir).length === 0, 'the session’s processes and the workspace folders to be gone', 20_000).catch(() => {})
    expect(session()).toEqual([])
    expect(readdirSync(workDir)).toEqual([])
  })

  test('the next start removes workspace folders whose owner is dead, and leaves those of live invocations', async () => {
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-work-'))
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const myStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    const dead = path.join(workDir, 'vitest-4194000-deadbeef')
    const alive = path.join(workDir, `vitest-${process.pid}-0a11ve00`)
    const foreign = path.join(workDir, 'run-not-ours')
    for (const [dir, owner] of [
      [dead, { pid: 4194000, start: '1', startedAt: '2026-01-01T00:00:00Z' }],
      [alive, { pid: process.pid, start: myStart, startedAt: new Date().toISOString() }],
    ] as const) {
      await mkdir(path.join(dir, 'left-behind', 'workspace'), { recursive: true })
      await writeFile(path.join(dir, 'owner.json'), JSON.stringify(owner))
    }
    await mkdir(foreign)

    const fixture = await createExperimentFixture(simpleTasks(1), { seeds: 1 })
    const result = await fixture.vitest([], { env: { TASK_OUTCOME_WORKDIR: workDir } })
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toContain('task-outcome: removed 1 workspace folder(s) left by a killed run: vitest-4194000-deadbeef')
    expect(existsSync(dead)).toBe(false)
    expect(existsSync(alive)).toBe(true)
    expect(existsSync(foreign)).toBe(true)
  })
})
