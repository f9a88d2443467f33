import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { GoldAgent } from '../agents/builtin/gold.ts'
import { NoopAgent } from '../agents/builtin/noop.ts'
import type { Agent } from '../agents/types.ts'
import { TaskOutcomeError } from '../errors.ts'
import { judge, type OracleOptions } from '../oracle/index.ts'
import { oracleToolchain } from '../oracle/toolchain.ts'
import { protectedPaths } from '../oracle/folder-defaults.ts'
import { probeSandbox, toolchainMounts } from '../sandbox/index.ts'
import { templateRoot } from '../workspace/template.ts'
import type { Task } from '../tasks/task.ts'
import { buildAgentEnv } from '../workspace/env.ts'
import { createWorkspace, defaultWorkspaceRoot } from '../workspace/index.ts'
import { mapPool } from './pool.ts'

/** What one built-in agent left on one task, as the oracle judged it. */
export type CheckOutcome = { readonly solved: boolean } | { readonly error: string }

/** The gold/noop check of one task (SWE-bench's gold and empty-patch check). */
export interface TaskCheck {
  readonly task: string
  readonly gold: CheckOutcome
  readonly noop: CheckOutcome
  /** Valid when gold solves it and noop does not. */
  readonly valid: boolean
  /** Why the task is invalid, in words, when it is. */
  readonly problem: string | null
  /** A folder task's protected paths as the oracle restores them (its `protect`, or the default); null for a git-fix task. */
  readonly protected: readonly string[] | null
}

/** What the check's oracle runs with: a run's toolchain and, where the machine has one, a run's sandbox. */
type CheckOracle = Pick<OracleOptions, 'sandbox' | 'toolchain'>

/**
 * The oracle options a run of an experiment would use on this machine: the
 * toolchain resolved the same way (nothing inside the project, the
 * workspaces or the templates on its PATH) and the oracle's sandbox, which
 * sees the toolchain's folders and the prepared dependency folder
 * read-only. So a task that validates is a task the runs can judge, and no
 * check writes into a prepared folder.
 */
export async function checkOracle(): Promise<CheckOracle> {
  const exclude = [...new Set([process.cwd(), defaultWorkspaceRoot(), templateRoot()])]
  const toolchain = await oracleToolchain(process.env.PATH, exclude)
  const sandboxed = await probeSandbox().then(
    () => true,
    () => false,
  )
  return {
    toolchain,
    ...(sandboxed ? { sandbox: { readOnly: [...new Set([...toolchainMounts(toolchain.path, exclude), ...toolchain.mounts])] } } : {}),
  }
}

/** Runs one agent on a fresh workspace of the task and asks the oracle. */
async function trial(task: Task, agent: Agent, timeoutMs: number, oracle: CheckOracle): Promise<CheckOutcome> {
  const root = defaultWorkspaceRoot()
  await mkdir(root, { recursive: true })
  const scratch = await mkdtemp(path.join(root, 'validate-'))
  // gold and noop are the harness's own agents: a plain copy of the template, on the host.
  const workspace = await createWorkspace(task, root, { overlay: false })
  try {
    await workspace.snapshot()
    const env = buildAgentEnv({ host: process.env, pass: [], set: {}, armEnv: {}, armPath: [], cleanPath: [], home: scratch })
    await agent.run({
      task,
      workspace: workspace.dir,
      prompt: task.prompt,
      env,
      budgetUsd: 0,
      timeoutMs,
      transcriptPath: path.join(scratch, 'transcript.jsonl'),
      expectedHooks: [],
      arm: agent.kind,
      seed: 1,
    })
    const judgement = await judge(task, workspace, { timeoutMs, scratchDir: scratch, ...oracle })
    return { solved: judgement.solved }
  } catch (error) {
    if (error instanceof TaskOutcomeError) return { error: error.message }
    throw error
  } finally {
    await workspace.dispose()
    await rm(scratch, { recursive: true, force: true })
  }
}

function describe(outcome: CheckOutcome, expectSolved: boolean, agent: string): string | null {
  if ('error' in outcome) return `${agent} could not be checked: ${outcome.error}`
  if (outcome.solved === expectSolved) return null
  return expectSolved
    ? `${agent}: the reference solution does not solve it (fix solution/ or the oracle)`
    : `${agent}: the oracle already passes on the untouched starting point, so the task tests nothing`
}

/** Checks one task: gold must solve it, noop must not. */
export async function checkTask(task: Task, timeoutMs: number, oracle?: CheckOracle): Promise<TaskCheck> {
  const options = oracle ?? (await checkOracle())
  const gold = await trial(task, new GoldAgent(), timeoutMs, options)
  const noop = await trial(task, new NoopAgent(), timeoutMs, options)
  const problems = [describe(gold, true, 'gold'), describe(noop, false, 'noop')].filter((p): p is string => p !== null)
  const protect = task.kind === 'folder' ? await protectedPaths(task, { timeoutMs, scratchDir: os.tmpdir(), ...options }) : null
  return { task: task.id, gold, noop, valid: problems.length === 0, problem: problems.length === 0 ? null : problems.join('; '), protected: protect }
}

/**
 * Checks every task of a set, a few at a time (the worker pool `harvest` and
 * `select` use); `onChecked` reports progress. Results come back in task order.
 */
export async function checkTasks(
  tasks: readonly Task[],
  options: { timeoutMs: number; concurrency?: number; onChecked?: (check: TaskCheck, done: number, total: number) => void },
): Promise<TaskCheck[]> {
  const oracle = await checkOracle()
  return mapPool(
    tasks,
    options.concurrency ?? os.availableParallelism(),
    (task) => checkTask(task, options.timeoutMs, oracle),
    (check, _index, done) => options.onChecked?.(check, done, tasks.length),
  )
}
