import { describe, expect, test } from 'vitest'
import { ProblemsError } from '../../src/errors.ts'
import { parseExperiment } from '../../src/experiment/parse.ts'

const minimal = { name: 'pilot', agent: { kind: 'claude-code', model: 'm' }, arms: { baseline: {}, tool: {} }, control: 'baseline', budgetUsd: 2 }

describe('parsing an experiment', () => {
  test('applies the pre-registration defaults', () => {
    const spec = parseExperiment(minimal, 'tasks/pilot/experiment.ts')
    expect(spec.seeds).toBe(3)
    expect(spec.orderSeed).toBe(20261014)
    expect(spec.decision).toEqual({ alpha: 0.05, margin: 1, resamples: 10_000, bootstrapSeed: 20261014, power: 0.8, effect: 0.15, cost: 'metered' })
    expect(spec.output).toBe('bench/task_outcome/pilot')
    expect(spec.tasks).toEqual({ dir: '.' })
    expect(spec.arms.tool?.setup).toEqual({ files: {}, commands: [], env: {}, path: [] })
  })

  test('names every bad field at once, with the file', () => {
    const error = (() => {
      try {
        parseExperiment({ ...minimal, seeds: 0, control: 'nope', budgetUsd: undefined, typo: true }, 'tasks/pilot/experiment.ts')
      } catch (caught) {
        return caught as ProblemsError
      }
      throw new Error('expected a ProblemsError')
    })()
    expect(error).toBeInstanceOf(ProblemsError)
    const fields = error.problems.map((p) => p.field)
    expect(fields).toEqual(expect.arrayContaining(['seeds', 'budgetUsd', 'typo']))
    expect(error.message).toContain('tasks/pilot/experiment.ts: typo: unknown field')
  })

  test('the control must be one of the arms', () => {
    expect(() => parseExperiment({ ...minimal, control: 'nope' }, 'e.ts')).toThrow(/control: "nope" is not one of the arms \(baseline, tool\)/)
  })

  test('an experiment needs two arms', () => {
    expect(() => parseExperiment({ ...minimal, arms: { baseline: {} } }, 'e.ts')).toThrow(/arms: name at least two arms/)
  })

  test('a sequential design: defaults, in the spec hash, and one line per mistake', async () => {
    const spec = parseExperiment({ ...minimal, decision: { sequential: { looks: [0.5, 1] } } }, 'e.ts')
    expect(spec.decision.sequential).toEqual({ looks: [0.5, 1], spending: 'obrien-fleming', binding: false })
    const { specHashInput } = await import('../../src/experiment/hash.ts').then((module) => ({ specHashInput: module.canonicalJson }))
    expect(specHashInput(spec)).toContain('"sequential":{"binding":false,"looks":[0.5,1],"spending":"obrien-fleming"}')
    expect(
      parseExperiment({ ...minimal, decision: { sequential: { looks: [4, 8], spending: { gamma: -2 }, futility: { conditionalPower: 0.1 } } } }, 'e.ts').decision.sequential
        ?.futility,
    ).toEqual({ conditionalPower: 0.1 })
    expect(() => parseExperiment({ ...minimal, decision: { sequential: { looks: [0.5, 0.9] } } }, 'e.ts')).toThrow(
      /decision\.sequential\.looks\.1: the last look is at all the planned tasks/,
    )
    expect(() => parseExperiment({ ...minimal, decision: { sequential: { looks: [0.6, 0.5, 1] } } }, 'e.ts')).toThrow(/looks must increase/)
    expect(() => parseExperiment({ ...minimal, decision: { sequential: { looks: [2.5, 8] } } }, 'e.ts')).toThrow(/2\.5 is neither a fraction/)
    expect(() => parseExperiment({ ...minimal, decision: { sequential: { looks: [0.5, 1], binding: true } } }, 'e.ts')).toThrow(/binding futility is not supported/)
    expect(() => parseExperiment({ ...minimal, arms: { baseline: {}, a: {}, b: {} }, decision: { sequential: { looks: [0.5, 1] } } }, 'e.ts')).toThrow(
      /a sequential design compares one treatment with the control/,
    )
  })
})
