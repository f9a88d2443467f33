/**
 * Thrown by a command to end with a given exit status after it printed its
 * own output (`main` returns the status instead of printing an error).
 */
export class ExitCode extends Error {
  constructor(readonly status: number) {
    super(`exit ${status}`)
  }
}
