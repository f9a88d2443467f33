import { HarnessFailure } from '../../src/errors.ts'

/** The `HarnessFailure` a run ends with; anything else (a measurement, another error) fails the test. */
export async function failureOf(promise: Promise<unknown>): Promise<HarnessFailure> {
  try {
    await promise
  } catch (error) {
    if (error instanceof HarnessFailure) return error
    throw error
  }
  throw new Error('expected a HarnessFailure')
}

/** The `HarnessFailure` a synchronous call throws (a stream classifier, say); anything else fails the test. */
export function failureOfCall(run: () => unknown): HarnessFailure {
  try {
    run()
  } catch (error) {
    if (error instanceof HarnessFailure) return error
    throw error
  }
  throw new Error('expected a HarnessFailure')
}
