import { expect, test } from 'vitest'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { verdictSentence } from '../../src/analysis/sentences.ts'
import { experimentRecords, settings } from './records.ts'

// "Otherwise the result is reported as what it is: no difference shown, or a loss."

const sentence = (change: (task: number) => number, unsolved?: (task: number, arm: string) => boolean) => {
  const { records, expected } = experimentRecords({ tasks: 10, change, ...(unsolved === undefined ? {} : { unsolved }) })
  return verdictSentence(analyzeRuns(records, settings(), expected).comparisons[0]!)
}

test('supported: the claim, quoted', () => {
  expect(sentence(() => -0.2)).toBe('Supported: "tool lowers the agent\'s cost per task without lowering its solve rate (against baseline)".')
})

test('no difference shown', () => {
  expect(sentence((task) => (task % 2 === 0 ? -0.05 : 0.05))).toMatch(/^Not supported: ".*"\. No cost reduction shown\.$/)
})

test('a loss: the whole interval above zero', () => {
  expect(sentence(() => 0.3)).toMatch(/It is a loss: tool costs more per task \(the whole interval is above zero\)\.$/)
})

test('cheaper but solving too few tasks', () => {
  expect(
    sentence(
      () => -0.2,
      (task, arm) => arm === 'tool' && task < 3,
    ),
  ).toMatch(/Cost is lower, but tool solves 7 tasks against 10 for baseline, beyond the margin of 1\.$/)
})

test('a loss and too few solved: both said', () => {
  expect(
    sentence(
      () => 0.3,
      (task, arm) => arm === 'tool' && task < 3,
    ),
  ).toMatch(/It is a loss: .*\. And tool solves 7 tasks against 10 for baseline, beyond the margin of 1\.$/)
})
