import { expect, test } from 'vitest'
import { onCancel } from '../../../../src/sandbox/process/terminate/cancel.ts'

test('an abort runs the cancel once', () => {
  const controller = new AbortController()
  let cancelled = 0
  onCancel(controller.signal, () => cancelled++)
  controller.abort()
  controller.abort()
  expect(cancelled).toBe(1)
})

test('a signal already aborted cancels at once', () => {
  let cancelled = 0
  onCancel(AbortSignal.abort(), () => cancelled++)
  expect(cancelled).toBe(1)
})

test('after the process ended, a later abort is ignored', () => {
  const controller = new AbortController()
  let cancelled = 0
  const stop = onCancel(controller.signal, () => cancelled++)
  stop()
  controller.abort()
  expect(cancelled).toBe(0)
})

test('no signal, nothing to listen to', () => {
  expect(() => onCancel(undefined, () => {})()).not.toThrow()
})
