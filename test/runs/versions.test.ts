import { expect, test } from 'vitest'
import { checkVersions, recordedVersionsFor, versionChanges, VersionMismatch, versionsBeforeRun } from '../../src/runs/versions.ts'
import type { Versions } from '../../src/runs/record.ts'

const recorded: Versions = {
  harness: '0.1.0',
  agent: 'claude 2.0.1',
  model: 'claude-sonnet-4-5',
  tool: null,
  node: 'v22.13.0',
  sandbox: 'bubblewrap 0.8.0',
  toolchain: 'node v22.13.0 /usr/bin/node',
  testRunner: 'vitest 4.1.12',
}
const where = { run: '001-t › tool › seed 2', runsFile: 'out/runs.jsonl' }

test('equal versions pass', () => {
  expect(versionChanges(recorded, recorded)).toEqual([])
  expect(() => checkVersions(recorded, { ...recorded }, where)).not.toThrow()
})

test("every differing field is named with both values, in the record's order", () => {
  const error = (() => {
    try {
      checkVersions(recorded, { ...recorded, sandbox: 'none (UNSANDBOXED)', node: 'v24.1.0', tool: 'lint@1' }, where)
    } catch (caught) {
      return caught
    }
    return undefined
  })()
  expect(error).toBeInstanceOf(VersionMismatch)
  expect((error as VersionMismatch).changes.map((change) => change.field)).toEqual(['tool', 'node', 'sandbox'])
  expect((error as Error).message).toBe(
    '001-t › tool › seed 2: out/runs.jsonl holds runs made with other versions (tool none → lint@1, node v22.13.0 → v24.1.0, sandbox bubblewrap 0.8.0 → none (UNSANDBOXED)). ' +
      'A resume never mixes versions: pin the recorded versions again, or start a new experiment.',
  )
  expect((error as VersionMismatch).code).toBe('TASK_OUTCOME_SPEC_ERROR')
})

test('a field either side lacks is not compared: nothing recorded, not known yet, or a record from before the field existed', () => {
  expect(versionChanges(undefined, recorded)).toEqual([])
  expect(versionChanges(recorded, versionsBeforeRun({ ...recorded, model: 'another' }))).toEqual([])
  const { testRunner: _runner, ...older } = recorded
  expect(versionChanges(older, { ...recorded, testRunner: 'vitest 5.0.0' })).toEqual([])
})

test('a null test runner (verify.sh) against a recorded one is a change', () => {
  expect(versionChanges(recorded, { testRunner: null })).toEqual([{ field: 'testRunner', recorded: 'vitest 4.1.12', current: null }])
})

test('after the session the message says the run is not recorded', () => {
  expect(() => checkVersions(recorded, { model: 'claude-opus-4' }, { ...where, afterRun: true })).toThrow(
    'A resume never mixes versions; this run is not recorded: pin the recorded versions again',
  )
})

test("the versions a run is checked against: its arm's, with the task's test runner", () => {
  const byArm = { tool: recorded }
  expect(recordedVersionsFor(byArm, 'tool', 'pytest 8.3.5')).toEqual({ ...recorded, testRunner: 'pytest 8.3.5' })
  const { testRunner: _runner, ...withoutRunner } = recorded
  expect(recordedVersionsFor(byArm, 'tool', undefined)).toEqual(withoutRunner)
  expect(recordedVersionsFor({}, 'baseline', null)).toEqual({ testRunner: null })
  expect(recordedVersionsFor({}, 'baseline', undefined)).toBeUndefined()
})

test("compared across arms: an arm with no runs yet meets the other arms' harness, Node, sandbox, toolchain, agent and model, never their tool", () => {
  const byArm = { baseline: recorded }
  const { tool: _tool, testRunner: _runner, ...shared } = recorded
  expect(recordedVersionsFor(byArm, 'tool', undefined)).toEqual(shared)
  // A Node 22 baseline beside a Node 24 tool arm is a mix, named with both values; the tool arm's own tool is not.
  expect(() => checkVersions(recordedVersionsFor(byArm, 'tool', undefined), { ...recorded, tool: 'lint@1', node: 'v24.1.0' }, where)).toThrow('(node v22.13.0 → v24.1.0)')
  // An arm whose agent spec differs (another model by design) is compared with the others on everything but the agent and the model.
  const { agent: _agent, model: _model, ...experimentWide } = shared
  expect(recordedVersionsFor(byArm, 'opus', undefined, ['opus'])).toEqual(experimentWide)
  // The arm's own runs come first.
  expect(recordedVersionsFor({ baseline: recorded, tool: { ...recorded, tool: 'lint@1' } }, 'tool', undefined)).toEqual({ ...shared, tool: 'lint@1' })
})
