import { chmod, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createAgent } from '../../src/agents/index.ts'
import { resolveExperiment, type LoadedExperiment } from '../../src/experiment/load.ts'
import { executeRun } from '../../src/runs/execute.ts'
import type { HarvestedFixture } from '../oracle/git-fix-task.ts'

/** A shell step that writes `content` to the workspace's `file` (a hostile agent's change). */
export const writeStep = (file: string, content: string) => `mkdir -p "$(dirname ${file})"\ncat > ${file} <<'EOF'\n${content}EOF\n`

/** The experiment of a task set whose arms are hostile `command` agents, with `gold` and `noop` beside them. */
export interface HostileArms {
  readonly experiment: LoadedExperiment
  /** One run of `arm` on the fixture's first task through the real path (executeRun: overlay, sandbox, agent, oracle, record). */
  record(arm: string): ReturnType<typeof executeRun>
}

/**
 * Writes one script per hostile arm into the fixture's task set (its shell
 * steps, then the `command` agent's result line) and resolves an experiment
 * with those arms, `gold` and `noop`: the set-up every oracle-disarmed test
 * runs its hostile agents through.
 */
export async function hostileArms(
  fixture: HarvestedFixture,
  options: { readonly name: string; readonly scripts: Readonly<Record<string, string>>; readonly workspaceRoot: string; readonly oracleTimeoutSeconds?: number },
): Promise<HostileArms> {
  const setDir = path.dirname(fixture.tasks[0]!.dir)
  const root = path.dirname(setDir)
  for (const [arm, steps] of Object.entries(options.scripts)) {
    await writeFile(path.join(setDir, `${arm}.sh`), `#!/usr/bin/env bash\n${steps}echo '{"status":"completed","costUsd":0.01}'\n`)
    await chmod(path.join(setDir, `${arm}.sh`), 0o755)
  }
  const [first] = Object.keys(options.scripts)
  const experiment = resolveExperiment(
    {
      default: {
        name: options.name,
        stage: 'example',
        agent: { kind: 'command', bin: `./${first}.sh`, options: { allowZeroCost: true } },
        arms: { ...Object.fromEntries(Object.keys(options.scripts).map((arm) => [arm, {}])), gold: { agent: { kind: 'gold' } }, noop: { agent: { kind: 'noop' } } },
        control: 'noop',
        budgetUsd: 0.5,
        timeoutSeconds: 60,
        oracleTimeoutSeconds: options.oracleTimeoutSeconds ?? 60,
        retries: { attempts: 1, backoffSeconds: 0 },
        output: path.join(root, 'out'),
      },
    },
    { file: path.join(setDir, 'experiment.ts'), root },
  )
  return {
    experiment,
    record(arm) {
      const spec = arm === 'gold' || arm === 'noop' ? { kind: arm, args: [], options: {} } : { ...experiment.spec.agent, bin: `./${arm}.sh` }
      const agent = createAgent(spec as typeof experiment.spec.agent, { experimentDir: experiment.dir, root: experiment.root })
      return executeRun({
        experiment,
        task: fixture.tasks[0]!,
        arm,
        seed: 1,
        order: 0,
        specSha256: 'd'.repeat(64),
        agent,
        agentVersion: 'test',
        workspaceRoot: options.workspaceRoot,
      })
    },
  }
}
