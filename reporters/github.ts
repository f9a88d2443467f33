import { appendFileSync } from 'node:fs'
import path from 'node:path'
import type { ArmSummary } from '../src/runs/summary.ts'

/**
 * GitHub Actions output: workflow commands (annotations) and the job's step
 * summary. Used only when `GITHUB_ACTIONS` is `true`.
 */

/** True inside a GitHub Actions job. */
export function inGithubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true'
}

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

/** A path as GitHub resolves annotation files: relative to the job's workspace (the repository root). */
export function annotationPath(file: string, root: string, env: NodeJS.ProcessEnv = process.env): string {
  return path
    .relative(env.GITHUB_WORKSPACE ?? root, file)
    .split(path.sep)
    .join('/')
}

/** One annotation (`::notice file=…,title=…::message`), on line 1 of `file`. */
export function annotation(kind: 'notice' | 'warning' | 'error', file: string, title: string, message: string): string {
  return `::${kind} file=${escapeProperty(file)},line=1,title=${escapeProperty(title)}::${escapeData(message)}`
}

/** The experiment's block of the job summary: its verdict and a per-arm table, in Markdown. */
export function stepSummary(experiment: string, verdictText: string, arms: readonly ArmSummary[]): string {
  const rows = arms.map((arm) => `| ${arm.arm} | ${arm.runs} | ${arm.solved} | ${arm.timeouts} | ${arm.meanCostUsd === null ? '—' : `$${arm.meanCostUsd.toFixed(4)}`} |`)
  return [
    `### task-outcome · ${experiment}`,
    '',
    '```',
    verdictText.replace(/^\n+/, ''),
    '```',
    '',
    '| arm | runs | solved | timeouts | mean cost |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n')
}

/** Appends to the job summary file (`GITHUB_STEP_SUMMARY`), when the job has one. */
export function appendStepSummary(markdown: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = env.GITHUB_STEP_SUMMARY
  if (file === undefined || file === '') return false
  appendFileSync(file, `${markdown}\n`)
  return true
}
