import { describe, expect, test } from 'vitest'
import { parseRecordedExperiment, resolveAnalysis, type RecordedExperiment } from '../../src/analysis/resolve.ts'
import { run } from './records.ts'

const spec: RecordedExperiment = parseRecordedExperiment(
  {
    name: 'exp',
    stage: 'pilot',
    arms: { baseline: {}, tool: {}, other: {} },
    control: 'baseline',
    seeds: 2,
    budgetUsd: 1.5,
    decision: { alpha: 0.1, margin: 0, resamples: 500, bootstrapSeed: 7, power: 0.9, effect: 0.2 },
    maxWorkers: 4,
  },
  'spec.json',
)

const records = [run('002', 'tool', 1, 1, 'solved'), run('001', 'tool', 2, 1, 'solved'), run('001', 'baseline', 1, 1, 'solved')]

describe('what to analyse: spec.json, flags, or the records alone', () => {
  test('from spec.json: control, every other arm in spec order, seeds 1..S, budget, stage and decision parameters', () => {
    const { settings, expected, source } = resolveAnalysis(records, spec, {}, 'runs.jsonl')
    expect(source).toBe('spec')
    expect(settings).toEqual({
      experiment: 'exp',
      stage: 'pilot',
      control: 'baseline',
      treatments: ['tool', 'other'],
      designChecks: [],
      departures: ['completeness not checked: no plan (--no-plan), so a task or seed with no recorded run at all cannot be seen as missing'],
      planChecked: false,
      budgetUsd: 1.5,
      alpha: 0.1,
      margin: 0,
      resamples: 500,
      bootstrapSeed: 7,
      power: 0.9,
      effect: 0.2,
      cost: 'metered',
      sequential: null,
    })
    // Tasks recorded (001, 002) × the analysed arms × seeds 1..2.
    expect(expected).toHaveLength(2 * 3 * 2)
  })

  test('flags override the spec', () => {
    const { settings, expected } = resolveAnalysis(records, spec, { treatment: 'tool', alpha: 0.01, margin: 2, resamples: 100, seed: 'x' }, 'runs.jsonl')
    expect(settings).toMatchObject({ treatments: ['tool'], alpha: 0.01, margin: 2, resamples: 100, bootstrapSeed: 'x' })
    expect(expected).toHaveLength(2 * 2 * 2)
  })

  test('a flag naming an arm the experiment does not have is refused, listing its arms', () => {
    expect(() => resolveAnalysis(records, spec, { treatment: 'tol' }, 'runs.jsonl')).toThrow(/--treatment tol: not an arm of experiment "exp" \(its arms: baseline, tool, other\)/)
  })

  test('without a spec: --control names the control, the other recorded arms are compared, seeds are those recorded, defaults apply', () => {
    const { settings, expected, source } = resolveAnalysis(records, null, { control: 'baseline' }, 'runs.jsonl')
    expect(source).toBe('records')
    expect(settings).toMatchObject({ stage: null, budgetUsd: null, treatments: ['tool'], alpha: 0.05, margin: 1, resamples: 10_000, bootstrapSeed: 20261014 })
    expect(expected).toHaveLength(2 * 2 * 2)
  })

  test('without a spec or --control: asks for the control, naming the recorded arms', () => {
    expect(() => resolveAnalysis(records, null, {}, 'x/runs.jsonl')).toThrow(
      /which arm is the control\? x\/runs\.jsonl has no spec\.json beside it\. Pass --control <arm> \(recorded arms: baseline, tool\)/,
    )
  })

  test('one arm in the file and no spec: says that arm is alone and the other is missing', () => {
    const oneArm = records.filter((record) => record.arm === 'tool')
    expect(() => resolveAnalysis(oneArm, null, {}, 'runs.jsonl')).toThrow(/holds runs of one arm only \(tool\); the other arm is missing/)
    expect(() => resolveAnalysis(oneArm, null, { control: 'tool' }, 'runs.jsonl')).toThrow(/holds runs of tool only: the treatment arm is missing\. Pass --treatment <arm>/)
  })

  test('spec.json with a malformed experiment is refused naming the field', () => {
    expect(() => parseRecordedExperiment({ name: 'x', arms: { a: {}, b: {} }, control: 'a', seeds: 0 }, 'out/spec.json')).toThrow(
      /out\/spec\.json: field manifest\.experiment\.seeds: /,
    )
  })
})
