import { cp, mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { contextHints } from '../../src/scripted-model/policy.ts'
import { skillLeads, skillsToLoad } from '../../src/scripted-model/skills.ts'
import { learnScriptedTask } from '../../src/scripted-model/task-knowledge.ts'
import type { ScriptedTask } from '../../src/scripted-model/types.ts'
import type { Problem } from '../../src/errors.ts'
import { loadExperiments, type LoadedExperiment } from '../../src/experiment/load.ts'
import { forecastExperiment } from '../../src/runs/forecast.ts'
import { prepareLoadedExperiment, type PreparedExperiment } from '../../src/runs/prepare.ts'
import { checkTasks } from '../../src/curate/task-check.ts'
import type { FolderTask } from '../../src/tasks/task.ts'
import { loadSkillLibrary, resolveArmSkills, type SkillLibrary } from '../../src/workspace/skills.ts'
import { repoRoot } from '../helpers/experiment-fixture.ts'

// The embedded skill experiment `tasks/skills-demo/` (Vitest project
// `skills-demo`): its tasks are valid, its experiment plans what the skills
// benchmark prescribes, and its skills are written so the scripted model's
// policy tells the conditions apart. Gold, noop and the oracles run for real.

const setDir = path.join(repoRoot, 'tasks/skills-demo')
let experiment: LoadedExperiment
let prepared: PreparedExperiment
let library: SkillLibrary
beforeAll(async () => {
  const experiments = await loadExperiments({ file: path.join(setDir, 'experiment.ts'), root: repoRoot })
  expect(experiments.map((loaded) => loaded.spec.name)).toEqual(['skills-demo'])
  experiment = experiments[0]!
  prepared = await prepareLoadedExperiment(experiment)
  library = await loadSkillLibrary(path.join(setDir, 'skills'))
})

const positive = ['001-quoted-fields-split-at-commas', '002-due-dates-a-month-late', '003-environment-port-ignored']
const negativeControl = '004-help-names-the-wrong-option'

describe('tasks/skills-demo', () => {
  test('every task is valid: the reference solution solves it, an agent that changes nothing does not', async () => {
    const checks = await checkTasks(prepared.tasks, { timeoutMs: 30_000 })
    expect(checks.map((check) => [check.task, check.gold, check.noop, check.problem])).toEqual(
      [...positive, negativeControl].map((task) => [task, { solved: true }, { solved: false }, null]),
    )
  })

  test('three tasks with a target skill and one negative control (target and irrelevant skill "none")', () => {
    const metadata = Object.fromEntries(prepared.tasks.map((task) => [task.id, (task as FolderTask).metadata]))
    expect(Object.keys(metadata)).toEqual([...positive, negativeControl])
    for (const task of positive) expect(library.has(metadata[task]!.target_skill) && library.has(metadata[task]!.irrelevant_skill), task).toBe(true)
    expect(metadata[negativeControl]).toMatchObject({ target_skill: 'none', irrelevant_skill: 'none' })
    expect([...library.keys()]).toEqual(['bdi-mental-states', 'config-loading', 'csv-parsing', 'date-handling', 'input-validation'])
  })

  test('the plan: six conditions × 3 seeds per task with a target skill; control, full and sanity for the negative control', () => {
    expect(experiment.spec).toMatchObject({ stage: 'demo', seeds: 3, maxWorkers: 2, control: 'control', agent: { kind: 'claude-code', options: { scriptedModel: true } } })
    const armsOf = (task: string) => [...new Set(prepared.plan.filter((run) => run.task === task).map((run) => run.arm))].sort()
    for (const task of positive) expect(armsOf(task), task).toEqual(['control', 'full', 'negative', 'target', 'target_plus_one', 'target_plus_unrelated'])
    expect(armsOf(negativeControl)).toEqual(['control', 'full', 'sanity'])
    const forecast = forecastExperiment(prepared)
    expect(forecast.runsPerArm).toEqual({ control: 12, target: 9, negative: 9, full: 12, target_plus_one: 9, target_plus_unrelated: 9, sanity: 3 })
    expect(forecast.runs).toBe(63)
    expect(forecast.overBudget).toBe(false)
  })

  test('each condition gives each task exactly the skills the design names', () => {
    const problems: Problem[] = []
    const skillsOf = (task: string, arm: string) =>
      resolveArmSkills(arm, experiment.spec.arms[arm]!, prepared.tasks.find((t) => t.id === task)!, experiment.spec.skills!, library, experiment.file, problems)
    expect(Object.fromEntries(['target', 'negative', 'target_plus_one', 'target_plus_unrelated'].map((arm) => [arm, skillsOf(positive[0]!, arm)]))).toEqual({
      target: ['csv-parsing'],
      negative: ['bdi-mental-states'],
      target_plus_one: ['csv-parsing', 'input-validation'],
      target_plus_unrelated: ['config-loading', 'csv-parsing'],
    })
    expect(skillsOf(negativeControl, 'full')).toEqual([...library.keys()])
    expect(skillsOf(negativeControl, 'sanity')).toEqual([])
    expect(skillsOf(negativeControl, 'control')).toEqual([])
    expect(problems).toEqual([])
  })

  describe('the skills tell the conditions apart for the scripted model', () => {
    // What Claude Code lists when every skill of the library is installed (the built-in skills left out).
    let listing: string
    let known: Map<string, ScriptedTask>
    beforeAll(async () => {
      const lines: string[] = []
      for (const name of library.keys()) {
        const description = /^description: (.*)$/m.exec(await readFile(path.join(setDir, 'skills', name, 'SKILL.md'), 'utf8'))![1]
        lines.push(`- ${name}: ${description}`)
      }
      listing = `<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n${lines.join('\n')}\n</system-reminder>\n`
      known = new Map()
      for (const task of prepared.tasks as FolderTask[]) {
        const workspace = await mkdtemp(path.join(os.tmpdir(), 'skills-demo-'))
        try {
          await cp(task.startingDir, workspace, { recursive: true })
          for (const name of library.keys()) await cp(library.get(name)!.dir, path.join(workspace, '.claude/skills', name), { recursive: true })
          known.set(task.id, await learnScriptedTask(task, workspace))
        } finally {
          await rm(workspace, { recursive: true, force: true })
        }
      }
    })

    test('each task loads its target skill and never its irrelevant or unrelated one; the negative control loads none', () => {
      const loads = Object.fromEntries([...known].map(([id, task]) => [id, skillsToLoad(listing, task).map((skill) => skill.name)]))
      expect(loads).toEqual({
        [positive[0]!]: ['csv-parsing'],
        [positive[1]!]: ['date-handling', 'input-validation'], // the related skill looks relevant too: it costs a turn
        [positive[2]!]: ['config-loading'],
        [negativeControl]: [],
      })
    })

    test('every target skill leads to the fix: it names the file to change, or code that occurs there', async () => {
      for (const id of positive) {
        const task = prepared.tasks.find((t) => t.id === id) as FolderTask
        const body = await readFile(path.join(setDir, 'skills', task.metadata.target_skill, 'SKILL.md'), 'utf8')
        const scripted = known.get(id)!
        const guides = contextHints(body, scripted).goldNamed.length > 0 || skillLeads(body, scripted).length > 0
        expect(guides, `${id}: ${task.metadata.target_skill}`).toBe(true)
        const irrelevant = await readFile(path.join(setDir, 'skills', task.metadata.irrelevant_skill, 'SKILL.md'), 'utf8')
        expect(contextHints(irrelevant, scripted).goldNamed, `${id}: ${task.metadata.irrelevant_skill}`).toEqual([])
      }
    })
  })
})
