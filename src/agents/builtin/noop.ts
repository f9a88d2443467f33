import type { Agent, AgentRunResult } from '../types.ts'
import { builtinResult, builtinVersion } from './result.ts'

/** `noop`: changes nothing. A task that `noop` solves tests nothing (its oracle already passes). */
export class NoopAgent implements Agent {
  readonly kind = 'noop'

  async version(): Promise<string> {
    return builtinVersion(this.kind)
  }

  async run(): Promise<AgentRunResult> {
    return builtinResult('completed', performance.now())
  }
}
