import { createExperimentFixture, simpleTasks, type ExperimentFixture } from '../helpers/experiment-fixture.ts'

/**
 * A scripted pilot: the real `command` agent (a bash script) fixes each
 * folder task and reports a cost that depends on its arm, so the decision
 * rule's verdict is known in advance. Its stdout is the run's transcript.
 */
export async function scriptedPilot(options: { tasks?: number; baselineCost: number; toolCost: number; stage?: string }): Promise<ExperimentFixture> {
  const fixture = await createExperimentFixture(simpleTasks(options.tasks ?? 5), {
    name: 'fixture',
    stage: options.stage ?? 'pilot',
    agent: { kind: 'command', bin: './agent.sh' },
    arms: { baseline: {}, tool: {} },
    control: 'baseline',
    seeds: 1,
  })
  await fixture.writeAgent('agent.sh', [
    'set -euo pipefail',
    'prompt=$(cat)',
    'echo "read the prompt: ${prompt}"',
    'echo right > value.txt',
    'echo "edited value.txt in arm ${TASK_OUTCOME_ARM}, seed ${TASK_OUTCOME_SEED}"',
    `if [ "$TASK_OUTCOME_ARM" = tool ]; then cost=${options.toolCost}; else cost=${options.baselineCost}; fi`,
    'echo "{\\"status\\":\\"completed\\",\\"costUsd\\":${cost},\\"turns\\":2,\\"toolCalls\\":1,\\"toolCallsBeforeFirstEdit\\":0}"',
  ])
  return fixture
}
