import type { RecordedRun } from '../runs/record.ts'
import type { Comparison } from './comparison.ts'
import type { AnalysisReport } from './report.ts'
import { listSkillChecks } from './skill-checks.ts'
import { chargedCostUsd } from './task-summary.ts'
import type { CostEndpoint } from './cost-summary.ts'

/**
 * The report's figures as Vega-Lite specifications (pure data: rendered to
 * inline SVG by `render-svg.ts`). Every mark that stands for a task or a run
 * carries a description (the SVG's aria-label), so a reader with a screen
 * reader, and the browser test, can tell which is which.
 */

/** A Vega-Lite specification (kept loose: the compiler checks it). */
export type VegaLiteSpec = Record<string, unknown>

/** One figure of report.html. */
export interface Figure {
  /** A stable id (the element's id in report.html). */
  readonly id: string
  readonly title: string
  /** What the figure shows, in a sentence, under it. */
  readonly caption: string
  readonly spec: VegaLiteSpec
  /** Tasks drawn as one mark each, and runs drawn as one dot each (what the browser test counts). */
  readonly marks: { readonly tasks: number; readonly runs: number }
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json'
const ARM_COLOURS = ['#4c78a8', '#e45756', '#54a24b', '#b279a2', '#f58518', '#72b7b2', '#9d755d']
const OUTCOME_SHAPES = { solved: 'circle', unsolved: 'cross', timeout: 'triangle-up' } as const
const ROW = 22
const WIDTH = 560

const CONFIG = {
  font: 'sans-serif',
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 11, titleFontSize: 12, orient: 'bottom' },
}

/** A layered Vega-Lite spec in the report's width and style, one band of `step` pixels per row, the layers sharing their x scale. */
function rowsOfLayers(step: number, layer: readonly unknown[]): VegaLiteSpec {
  return { $schema: SCHEMA, width: WIDTH, height: { step }, config: CONFIG, layer, resolve: { scale: { x: 'shared' } } }
}

function percent(value: number): string {
  const text = (value * 100).toFixed(1)
  return `${value >= 0 ? '+' : ''}${text}%`
}

function runsOf(records: readonly RecordedRun[], task: string, arm: string): RecordedRun[] {
  return records.filter((record) => record.task === task && record.arm === arm).sort((a, b) => a.seed - b.seed)
}

/**
 * The forest plot of one comparison: per task, each run's cost relative to
 * the task's control mean (the treatment's runs filled, the control's
 * hollow), the task's r as a diamond, the median r and its bootstrap
 * interval as a band over every task, and zero marked. Tasks whose control
 * cost nothing (r = +∞) cannot be placed on the axis and are left out (the
 * caption says how many).
 */
export function forestFigure(comparison: Comparison, records: readonly RecordedRun[], budgetUsd: number | null, endpoint: CostEndpoint = 'metered'): Figure {
  const { treatment, control } = comparison
  const drawn = comparison.perTask.filter((pair) => Number.isFinite(pair.r) && pair.control.meanCostUsd > 0)
  const dots = drawn.flatMap((pair) =>
    [control, treatment].flatMap((arm) =>
      runsOf(records, pair.task, arm).map((run) => {
        const relative = (chargedCostUsd(run, budgetUsd, endpoint) - pair.control.meanCostUsd) / pair.control.meanCostUsd
        return { task: pair.task, arm, relative, description: `run ${pair.task} › ${arm} › seed ${run.seed}: ${run.outcome}, ${percent(relative)} against the ${control} mean` }
      }),
    ),
  )
  const tasks = drawn.map((pair) => ({ task: pair.task, r: pair.r, description: `task ${pair.task}: r = ${percent(pair.r)}` }))
  const [lower, upper] = comparison.effect.ci95
  const band = [{ lower: Number.isFinite(lower) ? lower : null, upper: Number.isFinite(upper) ? upper : null, median: comparison.effect.medianRelativeChange }]
  const left = comparison.perTask.length - drawn.length
  const y = { field: 'task', type: 'nominal', title: 'task', sort: drawn.map((pair) => pair.task) }
  const x = { field: 'relative', type: 'quantitative', title: `cost relative to the ${control} mean of the task`, axis: { format: '+.0%' } }
  return {
    id: `forest-${treatment}`,
    title: `Per-task relative cost change: ${treatment} against ${control}`,
    caption:
      `Each dot is one run's cost relative to its task's mean ${control} cost (filled: ${treatment}; hollow: ${control}); the diamond is the task's r = d / mean ${control} cost; ` +
      `the shaded band is the 95% bootstrap interval of the median r (${percent(lower)} to ${percent(upper)}), the solid line the median (${percent(comparison.effect.medianRelativeChange)}), the dashed line zero.` +
      (left > 0 ? ` ${left} task(s) whose ${control} cost nothing (r = +∞) are not drawn.` : ''),
    marks: { tasks: tasks.length, runs: dots.length },
    spec: rowsOfLayers(ROW, [
      { data: { values: band }, mark: { type: 'rect', color: '#4c78a8', opacity: 0.14 }, encoding: { x: { field: 'lower', type: 'quantitative' }, x2: { field: 'upper' } } },
      { data: { values: band }, mark: { type: 'rule', color: '#4c78a8', strokeWidth: 2 }, encoding: { x: { field: 'median', type: 'quantitative' } } },
      { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#222', strokeDash: [4, 3] }, encoding: { x: { field: 'zero', type: 'quantitative' } } },
      {
        data: { values: dots },
        mark: { type: 'point', size: 42, strokeWidth: 1.5 },
        encoding: {
          x,
          y,
          yOffset: { field: 'arm', type: 'nominal', sort: [control, treatment], scale: { paddingOuter: 0.6 } },
          color: { field: 'arm', type: 'nominal', title: 'arm', sort: [control, treatment], scale: { domain: [control, treatment], range: ['#8a8a8a', '#e45756'] } },
          fill: { condition: { test: `datum.arm === ${JSON.stringify(treatment)}`, value: '#e45756' }, value: 'transparent' },
          description: { field: 'description' },
        },
      },
      {
        data: { values: tasks },
        mark: { type: 'point', shape: 'diamond', size: 110, filled: true, color: '#1b1b1b' },
        encoding: { x: { field: 'r', type: 'quantitative' }, y, description: { field: 'description' } },
      },
    ]),
  }
}

/**
 * Per-task paired costs of one comparison (a dumbbell): the control's and
 * the treatment's mean cost joined by a line, every run a small mark in its
 * arm's colour, shaped by its outcome (solved, unsolved, timeout at the
 * budget cap).
 */
export function pairedCostFigure(comparison: Comparison, records: readonly RecordedRun[], budgetUsd: number | null, endpoint: CostEndpoint = 'metered'): Figure {
  const { treatment, control } = comparison
  const order = comparison.perTask.map((pair) => pair.task)
  const lines = comparison.perTask.map((pair) => ({
    task: pair.task,
    control: pair.control.meanCostUsd,
    treatment: pair.treatment.meanCostUsd,
    description: `task ${pair.task}: ${control} $${pair.control.meanCostUsd.toFixed(4)} → ${treatment} $${pair.treatment.meanCostUsd.toFixed(4)}`,
  }))
  const means = comparison.perTask.flatMap((pair) => [
    { task: pair.task, arm: control, cost: pair.control.meanCostUsd },
    { task: pair.task, arm: treatment, cost: pair.treatment.meanCostUsd },
  ])
  const runs = comparison.perTask.flatMap((pair) =>
    [control, treatment].flatMap((arm) =>
      runsOf(records, pair.task, arm).map((run) => ({
        task: pair.task,
        arm,
        cost: chargedCostUsd(run, budgetUsd, endpoint),
        outcome: run.outcome,
        description: `run ${pair.task} › ${arm} › seed ${run.seed}: ${run.outcome}, $${chargedCostUsd(run, budgetUsd, endpoint).toFixed(4)}${run.outcome === 'timeout' ? ' (the budget cap)' : ''}`,
      })),
    ),
  )
  const y = { field: 'task', type: 'nominal', title: 'task', sort: order }
  const colour = { field: 'arm', type: 'nominal', title: 'arm', scale: { domain: [control, treatment], range: ['#4c78a8', '#e45756'] } }
  return {
    id: `costs-${treatment}`,
    title: `Per-task cost: ${control} against ${treatment}`,
    caption: `The line joins each task's mean cost per arm (large dots); the small marks are the runs: circle solved, cross unsolved, triangle a timeout charged the budget cap.`,
    marks: { tasks: lines.length, runs: runs.length },
    spec: rowsOfLayers(ROW, [
      {
        data: { values: lines },
        mark: { type: 'rule', color: '#9a9a9a', strokeWidth: 2 },
        encoding: { x: { field: 'control', type: 'quantitative', title: 'cost per run (USD)' }, x2: { field: 'treatment' }, y, description: { field: 'description' } },
      },
      { data: { values: means }, mark: { type: 'point', filled: true, size: 90, opacity: 0.9 }, encoding: { x: { field: 'cost', type: 'quantitative' }, y, color: colour } },
      {
        data: { values: runs },
        mark: { type: 'point', size: 30, strokeWidth: 1.4, opacity: 0.85 },
        encoding: {
          x: { field: 'cost', type: 'quantitative' },
          y,
          yOffset: { field: 'arm', type: 'nominal', sort: [control, treatment] },
          color: colour,
          shape: { field: 'outcome', type: 'nominal', title: 'outcome', scale: { domain: Object.keys(OUTCOME_SHAPES), range: Object.values(OUTCOME_SHAPES) } },
          description: { field: 'description' },
        },
      },
    ]),
  }
}

/**
 * A skill experiment's conditions, one row each: the median relative cost
 * change against the reference with its 95% bootstrap interval, claim arms
 * and design checks told apart.
 */
export function conditionsFigure(report: AnalysisReport): Figure | null {
  const rows = [
    ...report.comparisons.map((comparison) => ({
      condition: `${comparison.treatment} vs ${comparison.control}`,
      kind: 'claim arm',
      median: comparison.effect.medianRelativeChange,
      lower: comparison.effect.ci95[0],
      upper: comparison.effect.ci95[1],
    })),
    ...listSkillChecks(report.skillChecks).map((check) => ({
      condition: `${check.arm} vs ${check.reference}`,
      kind: 'design check',
      median: check.medianRelativeChange,
      lower: check.ci95[0],
      upper: check.ci95[1],
    })),
  ]
    .filter((row) => [row.median, row.lower, row.upper].every(Number.isFinite))
    .map((row) => ({ ...row, description: `condition ${row.condition}: median ${percent(row.median)} (${percent(row.lower)} to ${percent(row.upper)})` }))
  if (report.skillChecks === null || rows.length === 0) return null
  const y = { field: 'condition', type: 'nominal', title: 'condition', sort: rows.map((row) => row.condition) }
  const colour = { field: 'kind', type: 'nominal', title: 'role', scale: { domain: ['claim arm', 'design check'], range: [ARM_COLOURS[0], ARM_COLOURS[4]] } }
  return {
    id: 'conditions',
    title: 'Skill conditions: median relative cost change',
    caption:
      'One row per condition: the median per-task relative cost change against its reference, with its 95% bootstrap interval; the dashed line is zero. Design checks are never part of the claim.',
    marks: { tasks: rows.length, runs: 0 },
    spec: rowsOfLayers(ROW + 4, [
      { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#222', strokeDash: [4, 3] }, encoding: { x: { field: 'zero', type: 'quantitative' } } },
      { data: { values: rows }, mark: { type: 'rule', strokeWidth: 3 }, encoding: { x: { field: 'lower', type: 'quantitative' }, x2: { field: 'upper' }, y, color: colour } },
      {
        data: { values: rows },
        mark: { type: 'point', filled: true, size: 90 },
        encoding: {
          x: { field: 'median', type: 'quantitative', title: 'median relative cost change', axis: { format: '+.0%' } },
          y,
          color: colour,
          description: { field: 'description' },
        },
      },
    ]),
  }
}

/** Every figure of a complete report, in page order: per comparison a forest plot and the paired costs, then the skill conditions. */
export function reportFigures(report: AnalysisReport, records: readonly RecordedRun[]): Figure[] {
  if (!report.complete) return []
  const budget = report.parameters.budgetUsd
  const endpoint = report.parameters.cost
  const figures = report.comparisons.flatMap((comparison) => [forestFigure(comparison, records, budget, endpoint), pairedCostFigure(comparison, records, budget, endpoint)])
  const conditions = conditionsFigure(report)
  return conditions === null ? figures : [...figures, conditions]
}
