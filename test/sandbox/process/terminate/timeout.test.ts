import { expect, test } from 'vitest'
import { armTimeout } from '../../../../src/sandbox/process/terminate/timeout.ts'
import { waitFor } from '../../../helpers/wait-for.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('fires once the limit has passed', async () => {
  let fired = 0
  armTimeout(50, () => fired++)
  await waitFor(() => fired > 0, 'the timeout to fire')
  await sleep(100)
  expect(fired).toBe(1)
})

test('disarmed before the limit, it never fires', async () => {
  let fired = 0
  const disarm = armTimeout(100, () => fired++)
  disarm()
  await sleep(200)
  expect(fired).toBe(0)
})

test('no limit arms nothing', async () => {
  let fired = 0
  armTimeout(undefined, () => fired++)
  armTimeout(Number.POSITIVE_INFINITY, () => fired++)
  await sleep(50)
  expect(fired).toBe(0)
})
