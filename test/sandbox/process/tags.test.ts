import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { processTags, RUN_TAG_VARIABLE, SESSION_VARIABLE } from '../../../src/sandbox/process/tags.ts'

// The marks every started process carries, so its stragglers can be found after they leave its process group.

let saved: string | undefined
beforeEach(() => {
  saved = process.env.TASK_OUTCOME_SESSION
})
afterEach(() => {
  if (saved === undefined) delete process.env.TASK_OUTCOME_SESSION
  else process.env.TASK_OUTCOME_SESSION = saved
})

describe('a process’s tags', () => {
  test('live in TASK_OUTCOME_RUN_TAG and TASK_OUTCOME_SESSION', () => {
    expect(RUN_TAG_VARIABLE).toBe('TASK_OUTCOME_RUN_TAG')
    expect(SESSION_VARIABLE).toBe('TASK_OUTCOME_SESSION')
  })

  test('are the run’s tag alone outside a Vitest invocation', () => {
    delete process.env.TASK_OUTCOME_SESSION
    expect(processTags('run-1')).toStrictEqual({ TASK_OUTCOME_RUN_TAG: 'run-1' })
  })

  test('are the run’s tag alone when the invocation’s tag is empty', () => {
    process.env.TASK_OUTCOME_SESSION = ''
    expect(processTags('run-1')).toStrictEqual({ TASK_OUTCOME_RUN_TAG: 'run-1' })
  })

  test('carry the invocation’s tag too, as it is when the process starts', () => {
    process.env.TASK_OUTCOME_SESSION = 'session-a'
    expect(processTags('run-1')).toStrictEqual({ TASK_OUTCOME_SESSION: 'session-a', TASK_OUTCOME_RUN_TAG: 'run-1' })
    process.env.TASK_OUTCOME_SESSION = 'session-b'
    expect(processTags('run-2')).toStrictEqual({ TASK_OUTCOME_SESSION: 'session-b', TASK_OUTCOME_RUN_TAG: 'run-2' })
  })
})
