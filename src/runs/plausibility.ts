import type { AgentRunResult } from '../agents/types.ts'
import { HarnessFailure } from '../errors.ts'

/** The smallest cost of a run that called a model: a nano-dollar (no priced token costs less than about 1e-8 USD). */
export const MIN_MODEL_CALL_USD = 1e-9

/**
 * How far above its budget cap a run may end. Agent CLIs check their cap
 * after each model call, so the last call overshoots it (Claude Code 2.1.197
 * with `--max-budget-usd 0.01` reported $0.01125, 12.5% over); a cost above
 * twice the cap plus a cent is no overshoot of that kind.
 */
export const BUDGET_OVERSHOOT_FACTOR = 2
const ROUNDING_USD = 0.01

/**
 * Checks the numbers an agent reported before they become a record: the cost
 * must be a finite number, $0 or at least a nano-dollar (a $0 "success" is
 * the adapters' `zero-cost` failure, unless the agent is declared free), and
 * within reach of the budget cap; an agent stopped by its own budget must
 * have spent something. Anything else measured nothing we can
 * trust: a `HarnessFailure('implausible-result')` naming the value, never
 * retried (the same agent would report it again).
 */
export function checkReportedNumbers(result: AgentRunResult, budgetUsd: number, who: string): void {
  if (result.stop === 'timeout') return
  const cost = result.costUsd
  const fail = (why: string) => new HarnessFailure('implausible-result', `${who} reported costUsd ${String(cost)}: ${why}; the run is not recorded`, { retryable: false })
  if (typeof cost !== 'number' || !Number.isFinite(cost)) throw fail('not a finite number')
  if (cost < 0) throw fail('negative')
  if (result.stop === 'max-budget' && cost === 0) throw fail('stopped by its budget cap having spent nothing')
  if (cost > 0 && cost < MIN_MODEL_CALL_USD) throw fail(`below a nano-dollar (${MIN_MODEL_CALL_USD}), less than any model call costs`)
  const ceiling = budgetUsd * BUDGET_OVERSHOOT_FACTOR + ROUNDING_USD
  if (cost > ceiling) throw fail(`above the budget cap of $${budgetUsd} by more than a last model call overshoots it (at most $${ceiling})`)
}
