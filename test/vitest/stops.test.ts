import { readdir } from 'node:fs/promises'
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

// Real Vitest processes running a real `command` agent (a bash script) that leaves a mark
// in a folder of the test for every time it is started, so a test can count the agent's
// starts: unsandboxed (`sandbox: 'none'`), since the sandbox hides the host's folders.

const commandExperiment = (extra: Record<string, unknown>) => ({
  agent: { kind: 'command', bin: './agent.sh' },
  arms: { first: {}, second: {} },
  control: 'first',
  seeds: 1,
  env: { pass: ['MARKS'] },
  retries: { attempts: 3, backoffSeconds: 0 },
  sandbox: 'none',
  ...extra,
})

describe('a harness failure no retry can help', () => {
  test('"Not logged in" stops the experiment: one start of the agent, one message, the other runs not started, nothing recorded', async () => {
    const fixture = await createExperimentFixture(simpleTasks(3), commandExperiment({}))
    const marks = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-marks-'))
    await fixture.writeScript(
      'agent.sh',
      `touch "$MARKS/$TASK_OUTCOME_ARM-$TASK_OUTCOME_SEED-$$"
echo '{"status":"error","error":{"reason":"auth","message":"Not logged in · Please run /login"}}'`,
    )
    const result = await fixture.vitest([], { env: { MARKS: marks } })
    expect(result.exitCode).toBe(1)
    expect(await readdir(marks)).toHaveLength(1)
    expect(result.all).toMatch(/Tests\s+1 failed \| 5 skipped/)
    const stops = String(result.all)
      .split('\n')
      .filter((line) => line.includes('STOPPED at'))
    expect(stops).toHaveLength(1)
    expect(stops[0]).toContain('a harness failure no retry can help (auth): ')
    expect(stops[0]).toContain('Not logged in')
    expect(result.all).toContain('5 run(s) not started, nothing recorded for them. Fix it, then run again to resume: npx vitest run --project fixture')
    expect(await fixture.runsText()).toBe('')
  })
})

describe('the whole-experiment budget (maxBudgetUsd)', () => {
  test("stops starting runs before the spend plus the running runs' caps would pass it, says so, and reports the rest missing", async () => {
    const fixture = await createExperimentFixture(simpleTasks(3), commandExperiment({ budgetUsd: 0.5, maxBudgetUsd: 1.2 }))
    const marks = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-marks-'))
    await fixture.writeScript('agent.sh', `touch "$MARKS/$TASK_OUTCOME_ARM-$$"\necho '{"status":"completed","costUsd":0.3}'`)
    const result = await fixture.vitest([], { env: { MARKS: marks } })
    expect(result.exitCode, result.all).toBe(0)
    // $0 + 0.5, $0.3 + 0.5 and $0.6 + 0.5 fit in $1.20; $0.9 + 0.5 does not.
    expect(await fixture.runs()).toHaveLength(3)
    expect(await readdir(marks)).toHaveLength(3)
    expect(result.all).toContain(
      'task-outcome · fixture BUDGET: 3 run(s) not started ($0.90 spent + $0.00 under way at their caps + $0.50 for this run would pass maxBudgetUsd $1.20). They are missing from the data.',
    )
    expect(result.all).toMatch(/no verdict/)
  })

  test('with two workers, the caps of runs under way count too: the limit is never passed', async () => {
    const fixture = await createExperimentFixture(simpleTasks(4), commandExperiment({ budgetUsd: 0.5, maxBudgetUsd: 1.5, maxWorkers: 2 }))
    const marks = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-marks-'))
    await fixture.writeScript('agent.sh', `touch "$MARKS/$TASK_OUTCOME_ARM-$$"\nsleep 0.5\necho '{"status":"completed","costUsd":0.5}'`)
    const result = await fixture.vitest([], { env: { MARKS: marks } })
    expect(result.exitCode, result.all).toBe(0)
    const runs = await fixture.runs()
    expect(runs).toHaveLength(3)
    expect(runs.reduce((sum, run) => sum + Number(run.costUsd), 0)).toBeLessThanOrEqual(1.5)
    expect(await readdir(marks)).toHaveLength(3)
  })
})
