import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import type { Agent, AgentRunRequest, AgentRunResult } from '../../src/agents/types.ts'
import { ProblemsError } from '../../src/errors.ts'
import { resolveExperiment } from '../../src/experiment/load.ts'
import { executeRun } from '../../src/runs/execute.ts'
import { prepareLoadedExperiment } from '../../src/runs/prepare.ts'
import { writeFolderTasks } from '../helpers/experiment-fixture.ts'

// A stand-in agent that only looks: it lists the workspace's skills folder and
// reports the setting sources it was given. Workspace, skills and oracle are real.
class LookingAgent implements Agent {
  readonly kind = 'claude-code'
  seen: { skills: string[]; settingSources: readonly string[] | undefined; files: string[] } | undefined
  async version() {
    return 'looking 1'
  }
  async run(request: AgentRunRequest): Promise<AgentRunResult> {
    const skills = await readdir(path.join(request.workspaceOnHost ?? request.workspace, '.claude/skills')).catch(() => [] as string[])
    const files = (await readdir(request.workspaceOnHost ?? request.workspace)).filter((name) => name !== '.git')
    this.seen = { skills: skills.sort(), settingSources: request.settingSources, files: files.sort() }
    return {
      stop: 'completed',
      costUsd: 0.01,
      costSource: 'agent',
      tokens: null,
      turns: 1,
      toolCalls: 0,
      toolCallsBeforeFirstEdit: null,
      wallMs: 1,
      model: null,
      transcriptSha256: null,
      hooksFired: null,
    }
  }
}

async function skillExperiment(skills: Record<string, unknown> = {}) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-skills-'))
  const setDir = path.join(root, 'tasks', 'skills')
  await writeFolderTasks(setDir, [
    { id: '001-uses-git', starting: { 'a.txt': 'a\n' }, verify: 'exit 1', metadata: { target_skill: 'git', irrelevant_skill: 'poetry' } },
    { id: '002-no-skill-helps', starting: { 'a.txt': 'a\n' }, verify: 'exit 1' },
  ])
  for (const name of ['git', 'git-advanced', 'poetry', 'css']) {
    await mkdir(path.join(setDir, 'skills', name), { recursive: true })
    await writeFile(path.join(setDir, 'skills', name, 'SKILL.md'), `---\nname: ${name}\n---\nHow to ${name}.\n`)
  }
  const experiment = resolveExperiment(
    {
      default: {
        name: 'skills',
        agent: { kind: 'claude-code', model: 'm' },
        skills: { library: 'skills', related: { git: 'git-advanced' }, unrelated: { git: 'css' }, ...skills },
        seeds: 1,
        budgetUsd: 1,
        retries: { attempts: 1, backoffSeconds: 0 },
        output: path.join(root, 'out'),
      },
    },
    { file: path.join(setDir, 'experiment.ts'), root },
  )
  return { root, setDir, experiment }
}

describe('skill conditions', () => {
  test('arms are the conditions; a negative-control task runs only control, full and sanity', async () => {
    const { experiment } = await skillExperiment()
    expect(Object.keys(experiment.spec.arms)).toEqual(['control', 'target', 'negative', 'full', 'target_plus_one', 'target_plus_unrelated', 'sanity'])
    expect(experiment.spec.control).toBe('control')
    const prepared = await prepareLoadedExperiment(experiment)
    const armsOf = (task: string) =>
      prepared.plan
        .filter((run) => run.task === task)
        .map((run) => run.arm)
        .sort()
    expect(armsOf('001-uses-git')).toEqual(['control', 'full', 'negative', 'target', 'target_plus_one', 'target_plus_unrelated'])
    expect(armsOf('002-no-skill-helps')).toEqual(['control', 'full', 'sanity'])
  })

  test("each condition's workspace holds exactly its skills, in the agent's folder, with its setting sources", async () => {
    const { experiment } = await skillExperiment()
    const prepared = await prepareLoadedExperiment(experiment)
    const expected: Record<string, { skills: string[]; settingSources: string[] }> = {
      '001-uses-git › control': { skills: [], settingSources: [] },
      '001-uses-git › target': { skills: ['git'], settingSources: ['project'] },
      '001-uses-git › negative': { skills: ['poetry'], settingSources: ['project'] },
      '001-uses-git › full': { skills: ['css', 'git', 'git-advanced', 'poetry'], settingSources: ['project'] },
      '001-uses-git › target_plus_one': { skills: ['git', 'git-advanced'], settingSources: ['project'] },
      '001-uses-git › target_plus_unrelated': { skills: ['css', 'git'], settingSources: ['project'] },
      '002-no-skill-helps › control': { skills: [], settingSources: [] },
      '002-no-skill-helps › full': { skills: ['css', 'git', 'git-advanced', 'poetry'], settingSources: ['project'] },
      '002-no-skill-helps › sanity': { skills: [], settingSources: ['project'] },
    }
    for (const run of prepared.plan) {
      const agent = new LookingAgent()
      const task = prepared.tasks.find((t) => t.id === run.task)!
      const record = await executeRun({ experiment, task, arm: run.arm, seed: run.seed, order: run.order, specSha256: prepared.specSha256, agent, agentVersion: 'looking 1' })
      const want = expected[`${run.task} › ${run.arm}`]!
      expect(agent.seen, `${run.task} › ${run.arm}`).toEqual({
        skills: want.skills,
        settingSources: want.settingSources,
        files: want.skills.length > 0 ? ['.claude', 'a.txt'] : ['a.txt'],
      })
      expect(Object.keys(record.skills ?? {}).sort()).toEqual(want.skills)
      expect(Object.values(record.skills ?? {}).every((sha) => /^[0-9a-f]{64}$/.test(sha))).toBe(true)
      expect(record.changedFiles).toEqual([])
    }
  })

  test('a condition that needs a skill the library lacks is refused before any run, naming the field', async () => {
    const { experiment } = await skillExperiment({ related: {} })
    const error = await prepareLoadedExperiment(experiment).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ProblemsError)
    expect((error as Error).message).toContain('skills.related.git: name the skill related to "git"')
  })

  test('changing one byte of a skill changes the spec hash', async () => {
    const { experiment, setDir } = await skillExperiment()
    const before = (await prepareLoadedExperiment(experiment)).specSha256
    await writeFile(path.join(setDir, 'skills', 'css', 'SKILL.md'), '---\nname: css\n---\nHow to css!\n')
    expect((await prepareLoadedExperiment(experiment)).specSha256).not.toBe(before)
  })
})
