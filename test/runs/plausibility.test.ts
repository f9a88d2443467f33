import { beforeAll, describe, expect, test } from 'vitest'
import type { AgentRunResult } from '../../src/agents/types.ts'
import { HarnessFailure } from '../../src/errors.ts'
import { BUDGET_OVERSHOOT_FACTOR, checkReportedNumbers, MIN_MODEL_CALL_USD } from '../../src/runs/plausibility.ts'
import { createExperimentFixture, simpleTasks, type ExperimentFixture } from '../helpers/experiment-fixture.ts'

function result(overrides: Partial<AgentRunResult>): AgentRunResult {
  return {
    stop: 'completed',
    costUsd: 0.05,
    costSource: 'agent',
    tokens: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 },
    turns: 3,
    toolCalls: 2,
    toolCallsBeforeFirstEdit: 1,
    wallMs: 1000,
    model: 'm',
    transcriptSha256: null,
    hooksFired: null,
    ...overrides,
  }
}

function failure(overrides: Partial<AgentRunResult>, budgetUsd = 2): HarnessFailure | undefined {
  try {
    checkReportedNumbers(result(overrides), budgetUsd, 'the agent')
    return undefined
  } catch (error) {
    if (error instanceof HarnessFailure) return error
    throw error
  }
}

describe('the numbers an agent reports', () => {
  test('an ordinary cost, $0 from an agent that calls no model, and a last call over the cap pass', () => {
    expect(failure({})).toBeUndefined()
    expect(failure({ costUsd: 0, tokens: null, turns: 0 })).toBeUndefined()
    expect(failure({ stop: 'max-budget', costUsd: 0.01125 }, 0.01)).toBeUndefined()
  })

  test.each([
    ['NaN', Number.NaN, /costUsd NaN: not a finite number/],
    ['Infinity', Number.POSITIVE_INFINITY, /costUsd Infinity: not a finite number/],
    ['1e300', 1e300, /costUsd 1e\+300: above the budget cap of \$2/],
    ['1e-300', 1e-300, /costUsd 1e-300: below a nano-dollar/],
    ['-1', -1, /costUsd -1: negative/],
  ])('a cost of %s is an implausible-result harness failure naming the value', (_name, costUsd, message) => {
    const error = failure({ costUsd })
    expect(error?.reason).toBe('implausible-result')
    expect(error?.retryable).toBe(false)
    expect(error?.message).toMatch(message)
  })

  test('the bounds themselves pass: a nano-dollar exactly, and the ceiling (twice the cap plus a cent) exactly; a cent over it fails', () => {
    expect(failure({ costUsd: MIN_MODEL_CALL_USD })).toBeUndefined()
    expect(failure({ costUsd: 2 * BUDGET_OVERSHOOT_FACTOR + 0.01 }, 2)).toBeUndefined()
    expect(failure({ costUsd: 2 * BUDGET_OVERSHOOT_FACTOR + 0.02 }, 2)?.message).toMatch(/above the budget cap of \$2 .*at most \$4\.01/)
  })

  test('an agent stopped by its budget cap at $0 is an implausible-result harness failure', () => {
    expect(failure({ stop: 'max-budget', costUsd: 0 })?.message).toMatch(/costUsd 0: stopped by its budget cap having spent nothing/)
  })

  test('a timeout is charged the cap whatever the agent said, so its number is not judged', () => {
    expect(failure({ stop: 'timeout', costUsd: Number.NaN })).toBeUndefined()
  })
})

// A hostile `command` agent that reports a different impossible number on each seed, through the real path.
describe('a command agent that reports impossible numbers', () => {
  let fixture: ExperimentFixture
  let output = ''
  let exitCode: number | undefined

  beforeAll(async () => {
    fixture = await createExperimentFixture(simpleTasks(1), { arms: { noop: {}, liar: { agent: { kind: 'command', bin: './liar.sh' } } }, control: 'noop', seeds: 4 })
    await fixture.writeAgent('liar.sh', [
      'case "$TASK_OUTCOME_SEED" in',
      `  1) echo '{"status":"completed","costUsd":1e300}' ;;`,
      `  2) echo '{"status":"completed","costUsd":1e-300}' ;;`,
      `  3) echo '{"status":"completed","costUsd":NaN}' ;;`,
      `  4) echo '{"status":"max-budget","costUsd":0}' ;;`,
      'esac',
    ])
    const run = await fixture.vitest(['-t', 'liar'])
    output = run.all
    exitCode = run.exitCode
  }, 120_000)

  test('no run of it is recorded and the experiment fails', async () => {
    expect(exitCode).not.toBe(0)
    expect(await fixture.runs()).toEqual([])
  })

  test('1e300: refused as implausible, the value named', () => {
    expect(output).toMatch(/liar › seed 1: harness failure \(implausible-result\).*costUsd 1e\+300: above the budget cap/)
  })

  test('1e-300: refused as implausible, the value named', () => {
    expect(output).toMatch(/liar › seed 2: harness failure \(implausible-result\).*costUsd 1e-300: below a nano-dollar/)
  })

  test('NaN: not a number JSON can carry, so the result itself is refused', () => {
    expect(output).toMatch(/liar › seed 3: harness failure \(no-result\).*the last stdout line is not JSON/)
  })

  test('a max-budget stop at $0: refused as implausible', () => {
    expect(output).toMatch(/liar › seed 4: harness failure \(implausible-result\).*costUsd 0: stopped by its budget cap having spent nothing/)
  })
})
