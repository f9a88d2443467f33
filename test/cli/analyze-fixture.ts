import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { normaliseExperiment } from '../../src/experiment/hash.ts'
import { parseExperiment } from '../../src/experiment/parse.ts'
import { planRuns, type PlannedRun } from '../../src/runs/plan.ts'
import type { RecordedRun } from '../../src/runs/record.ts'
import { formatRuns } from '../../src/runs/store.ts'
import { repoRoot } from '../helpers/experiment-fixture.ts'
import { experimentRecords, SPEC } from '../analysis/records.ts'

/** The real CLI (bin/task-outcome.js, what `npx task-outcome` runs), without npx's start-up. */
export const cli = (args: readonly string[]) => execa(process.execPath, ['bin/task-outcome.js', ...args], { cwd: repoRoot, reject: false, all: true })

/** The experiment of the fixture records (exp: baseline vs tool, 3 seeds). */
export function fixtureExperiment(stage = 'pilot') {
  return parseExperiment({ name: 'exp', stage, agent: { kind: 'noop' }, arms: { baseline: {}, tool: {} }, control: 'baseline', seeds: 3, budgetUsd: 2 }, 'experiment.ts')
}

/** The fixture experiment's plan: every task × baseline and tool × seeds 1..3, in a seeded order (order seed 1). */
export function fixturePlan(tasks: readonly string[]): PlannedRun[] {
  return planRuns(
    tasks.map((id) => ({ id, arms: ['baseline', 'tool'] })),
    3,
    1,
  )
}

/**
 * An output folder as the reporter leaves it: runs.jsonl and spec.json (the
 * normalised experiment and the plan: by default the plan of every task the
 * records name; `plan: false` writes a spec.json from before the plan was kept).
 */
export async function outputFolder(
  records: readonly RecordedRun[],
  options: { spec?: boolean; stage?: string; plan?: readonly PlannedRun[] | false; experiment?: Record<string, unknown> } = {},
): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-analyze-'))
  await mkdir(dir, { recursive: true })
  await writeFile(path.join(dir, 'runs.jsonl'), formatRuns(records))
  if (options.spec !== false) {
    const manifest = { experiment: options.experiment ?? normaliseExperiment(fixtureExperiment(options.stage)), files: {} }
    if (options.plan === false) {
      await writeFile(path.join(dir, 'spec.json'), `${JSON.stringify({ specSha256: SPEC, manifest }, null, 2)}\n`)
    } else {
      const plan = options.plan ?? fixturePlan([...new Set(records.map((record) => record.task))].sort())
      await writeFile(path.join(dir, 'spec.json'), `${JSON.stringify({ specSha256: SPEC, manifest, changeLog: [], plan }, null, 2)}\n`)
    }
  }
  return dir
}

/** Twelve tasks where the tool is about 20% cheaper and solves as many. */
export function cheaperRecords() {
  return experimentRecords({ tasks: 12, seeds: 3, change: (task) => -0.25 + (task % 4) * 0.03 })
}
