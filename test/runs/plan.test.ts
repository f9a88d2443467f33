import { describe, expect, test } from 'vitest'
import { planRuns } from '../../src/runs/plan.ts'
import { runLabel } from '../../src/shared/run-label.ts'

const tasks = ['003-c', '001-a', '002-b'].map((id) => ({ id, arms: ['baseline', 'context'] }))

describe('the run plan', () => {
  test('holds every (task, arm, seed) exactly once, tasks in id order, orders 0..n-1', () => {
    const plan = planRuns(tasks, 3, 20261014)
    expect(plan).toHaveLength(3 * 2 * 3)
    expect(new Set(plan.map((run) => runLabel(run))).size).toBe(plan.length)
    expect(plan.map((run) => run.order)).toEqual(plan.map((_, i) => i))
    expect([...new Set(plan.map((run) => run.task))]).toEqual(['001-a', '002-b', '003-c'])
  })

  test('is the same for the same seed and differs for another', () => {
    expect(planRuns(tasks, 3, 20261014)).toEqual(planRuns(tasks, 3, 20261014))
    expect(planRuns(tasks, 3, 1).map(runLabel)).not.toEqual(planRuns(tasks, 3, 20261014).map(runLabel))
  })

  test('interleaves the arms within a task instead of running one arm first in bulk', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ id: `${String(i).padStart(3, '0')}-t`, arms: ['baseline', 'context'] }))
    const plan = planRuns(many, 3, 20261014)
    const firstArmFirstInBulk = many.filter((task) => {
      const arms = plan.filter((run) => run.task === task.id).map((run) => run.arm)
      return arms.slice(0, 3).every((arm) => arm === arms[0])
    })
    // With a fair shuffle of 3+3 seeds, the first three runs share an arm with probability 1/10.
    expect(firstArmFirstInBulk.length).toBeLessThan(10)
    expect(new Set(many.map((task) => plan.find((run) => run.task === task.id)?.arm)).size).toBe(2)
  })

  test('is pinned: an existing plan keeps its order byte for byte (recorded spec.json plans are checked against it)', () => {
    // The order main's planRuns gave before the run plan and the task draw shared one seeded shuffle.
    expect(planRuns(tasks, 2, 20261014).map((run) => `${run.order} ${runLabel(run)}`)).toEqual(
      [
        '001-a › baseline › seed 1',
        '001-a › context › seed 2',
        '001-a › baseline › seed 2',
        '001-a › context › seed 1',
        '002-b › baseline › seed 1',
        '002-b › context › seed 2',
        '002-b › baseline › seed 2',
        '002-b › context › seed 1',
        '003-c › baseline › seed 2',
        '003-c › context › seed 1',
        '003-c › context › seed 2',
        '003-c › baseline › seed 1',
      ].map((label, order) => `${order} ${label}`),
    )
  })

  test('names a case "<task-id> › <arm> › seed <n>"', () => {
    expect(runLabel({ task: '007-x', arm: 'context', seed: 2 })).toBe('007-x › context › seed 2')
  })
})
