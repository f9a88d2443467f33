import { sequentialAnalysis } from '../src/analysis/sequential.ts'
import { settingsFromExperiment } from '../src/analysis/settings.ts'
import { currentSpecRuns } from '../src/runs/prepare.ts'
import { runLabel } from '../src/shared/run-label.ts'
import type { ShardId } from '../src/runs/shards.ts'
import { writeLookNote, type LookNote } from '../src/vitest/looks.ts'
import { currentSession } from '../src/vitest/session.ts'
import type { ExperimentLedger } from './ledger.ts'

/**
 * Takes a sequential experiment's look anew after a case of it ended (see
 * `updateLooks`). A shard takes no look (its looks need every task's runs),
 * nor does a process without the invocation's session. A look that cannot be
 * computed is said (`say`), never thrown: it must not lose the run's record.
 */
export function takeLook(ledger: ExperimentLedger, shard: ShardId | undefined, say: (line: string) => void): void {
  const session = currentSession()
  if (session === undefined || shard !== undefined) return
  try {
    updateLooks(ledger, session.dir)
  } catch (error) {
    say(`task-outcome · ${ledger.provide.name}: the sequential look could not be computed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/**
 * A sequential experiment: applies its design to what is recorded and tells
 * the workers (the look note in the session folder) which blocks may run, or
 * that the design stopped. A look whose block has cases that ended without a
 * record in this invocation cannot be taken: the later blocks are skipped,
 * and a re-run resumes there. A fixed design writes nothing.
 */
function updateLooks(ledger: ExperimentLedger, sessionDir: string): void {
  const prepared = ledger.recorder?.prepared
  if (prepared?.experiment.spec.decision.sequential === undefined) return
  const settings = settingsFromExperiment(prepared.experiment.spec)
  const records = currentSpecRuns(prepared, [...ledger.recorder!.recorded.values()])
  const analysis = sequentialAnalysis(records, settings, prepared.plan, settings.treatments[0]!)
  let blocked: LookNote['blocked'] = null
  if (analysis.pendingLook !== null) {
    const tasks = new Set([...new Set(prepared.plan.map((run) => run.task))].sort().slice(0, analysis.design.looks[analysis.pendingLook - 1]!))
    const recordedLabels = new Set(records.map(runLabel))
    const open = prepared.plan.filter((run) => tasks.has(run.task) && !recordedLabels.has(runLabel(run)))
    if (open.length > 0 && open.every((run) => ledger.endedWithoutRecord.has(runLabel(run)))) {
      blocked = {
        look: analysis.pendingLook,
        reason: `${open.length} run(s) of its tasks ended without a record in this invocation; fix what failed and run again to resume`,
      }
    }
  }
  writeLookNote(sessionDir, ledger.provide.name, {
    decided: analysis.looks.filter((look) => look.action === 'continue').length,
    of: analysis.design.looks.length,
    stopped: analysis.stoppedAt === null ? null : { look: analysis.stoppedAt, reason: analysis.stoppedFor! },
    blocked,
  })
}
