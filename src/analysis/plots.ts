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

/**
 * A figure draws one dot per run while it has at most this many runs to draw
 * (100 tasks × 2 arms × 10 seeds); beyond, each task's runs of an arm are
 * drawn as their range, one mark.
 */
export const RUN_MARKS_LIMIT = 2_000

/**
 * A figure gives each task a row while there are at most this many (a page
 * of 200 × 22 px rows); beyond, it draws the tasks' distribution instead.
 */
export const TASK_ROWS_LIMIT = 200

/** Bars of the per-task r histogram drawn beyond `TASK_ROWS_LIMIT` tasks. */
const HISTOGRAM_BINS = 40

/** The runs of each (task, arm), in seed order: one pass over the records, not one per task. */
type RunIndex = (task: string, arm: string) => readonly RecordedRun[]

function indexRuns(records: readonly RecordedRun[]): RunIndex {
  const index = new Map<string, RecordedRun[]>()
  for (const record of records) {
    const key = `${record.task}\u0000${record.arm}`
    const runs = index.get(key)
    if (runs === undefined) index.set(key, [record])
    else runs.push(record)
  }
  for (const runs of index.values()) runs.sort((a, b) => a.seed - b.seed)
  return (task, arm) => index.get(`${task}\u0000${arm}`) ?? []
}

/** The smallest and largest of some values, without spreading them into arguments. */
function extent(values: readonly number[]): readonly [number, number] {
  let low = Infinity
  let high = -Infinity
  for (const value of values) {
    if (value < low) low = value
    if (value > high) high = value
  }
  return [low, high]
}

/** How many runs of both arms a figure would draw one dot each. */
function runCount(tasks: readonly string[], arms: readonly string[], runsOf: RunIndex): number {
  let count = 0
  for (const task of tasks) for (const arm of arms) count += runsOf(task, arm).length
  return count
}

/** Equal-width bins over the values (HISTOGRAM_BINS of them, or one around a single value), with how many fall in each. */
function histogram(values: readonly number[]): Array<{ readonly start: number; readonly end: number; readonly count: number }> {
  const [low, high] = extent(values)
  const bins = high > low ? HISTOGRAM_BINS : 1
  const width = high > low ? (high - low) / bins : 0.01
  const start = high > low ? low : low - width / 2
  const counts = new Array<number>(bins).fill(0)
  for (const value of values) counts[Math.min(bins - 1, Math.floor((value - start) / width))]! += 1
  return counts.map((count, i) => ({ start: start + i * width, end: start + (i + 1) * width, count }))
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
  const [lower, upper] = comparison.effect.ci95
  const band = [{ lower: Number.isFinite(lower) ? lower : null, upper: Number.isFinite(upper) ? upper : null, median: comparison.effect.medianRelativeChange }]
  const left = comparison.perTask.length - drawn.length
  const bandLayers = [
    { data: { values: band }, mark: { type: 'rect', color: '#4c78a8', opacity: 0.14 }, encoding: { x: { field: 'lower', type: 'quantitative' }, x2: { field: 'upper' } } },
    { data: { values: band }, mark: { type: 'rule', color: '#4c78a8', strokeWidth: 2 }, encoding: { x: { field: 'median', type: 'quantitative' } } },
    { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#222', strokeDash: [4, 3] }, encoding: { x: { field: 'zero', type: 'quantitative' } } },
  ]
  const bandText = `the shaded band is the 95% bootstrap interval of the median r (${percent(lower)} to ${percent(upper)}), the solid line the median (${percent(comparison.effect.medianRelativeChange)}), the dashed line zero.`
  const leftText = left > 0 ? ` ${left} task(s) whose ${control} cost nothing (r = +∞) are not drawn.` : ''
  const id = `forest-${treatment}`
  const title = `Per-task relative cost change: ${treatment} against ${control}`
  if (drawn.length > TASK_ROWS_LIMIT) return forestDistribution(drawn, { id, title, bandLayers, bandText, leftText })
  const runsOf = indexRuns(records)
  const relative = (run: RecordedRun, mean: number) => (chargedCostUsd(run, budgetUsd, endpoint) - mean) / mean
  const everyRun =
    runCount(
      drawn.map((pair) => pair.task),
      [control, treatment],
      runsOf,
    ) <= RUN_MARKS_LIMIT
  const dots = everyRun
    ? drawn.flatMap((pair) =>
        [control, treatment].flatMap((arm) =>
          runsOf(pair.task, arm).map((run) => {
            const change = relative(run, pair.control.meanCostUsd)
            return {
              task: pair.task,
              arm,
              relative: change,
              description: `run ${pair.task} › ${arm} › seed ${run.seed}: ${run.outcome}, ${percent(change)} against the ${control} mean`,
            }
          }),
        ),
      )
    : []
  const ranges = everyRun
    ? []
    : drawn.flatMap((pair) => [control, treatment].flatMap((arm) => runRange(pair.task, arm, runsOf(pair.task, arm), (run) => relative(run, pair.control.meanCostUsd), percent)))
  const tasks = drawn.map((pair) => ({ task: pair.task, r: pair.r, description: `task ${pair.task}: r = ${percent(pair.r)}` }))
  const y = { field: 'task', type: 'nominal', title: 'task', sort: drawn.map((pair) => pair.task) }
  const x = { field: 'relative', type: 'quantitative', title: `cost relative to the ${control} mean of the task`, axis: { format: '+.0%' } }
  const yOffset = { field: 'arm', type: 'nominal', sort: [control, treatment], scale: { paddingOuter: 0.6 } }
  const colour = { field: 'arm', type: 'nominal', title: 'arm', sort: [control, treatment], scale: { domain: [control, treatment], range: ['#8a8a8a', '#e45756'] } }
  const runLayer = everyRun
    ? {
        data: { values: dots },
        // The fill is a scale on `arm`, so the arm legend paints its symbols as the dots (Vega-Lite's legend
        // symbols take fillOpacity = opacity, and so do the dots).
        mark: { type: 'point', size: 42, strokeWidth: 1.5, opacity: 0.7, fillOpacity: 0.7 },
        encoding: {
          x,
          y,
          yOffset,
          color: colour,
          fill: { ...colour, scale: { domain: [control, treatment], range: ['transparent', '#e45756'] } },
          description: { field: 'description' },
        },
      }
    : {
        data: { values: ranges },
        mark: { type: 'rule', strokeWidth: 3 },
        encoding: { x: { ...x, field: 'low' }, x2: { field: 'high' }, y, yOffset, color: colour, description: { field: 'description' } },
      }
  return {
    id,
    title,
    caption:
      (everyRun
        ? `Each dot is one run's cost relative to its task's mean ${control} cost (filled: ${treatment}; hollow: ${control}); `
        : `Each bar spans the costs of a task's runs in one arm (${treatment} red, ${control} grey; too many runs to draw one by one), relative to its task's mean ${control} cost; `) +
      `the diamond is the task's r = d / mean ${control} cost; ${bandText}${leftText}`,
    marks: { tasks: tasks.length, runs: dots.length },
    spec: rowsOfLayers(ROW, [
      ...bandLayers,
      runLayer,
      {
        data: { values: tasks },
        mark: { type: 'point', shape: 'diamond', size: 110, filled: true, color: '#1b1b1b' },
        encoding: { x: { field: 'r', type: 'quantitative' }, y, description: { field: 'description' } },
      },
    ]),
  }
}

/** One task's runs of one arm as their range (lowest to highest value), for a figure with too many runs to draw each. */
function runRange(task: string, arm: string, runs: readonly RecordedRun[], value: (run: RecordedRun) => number, format: (value: number) => string) {
  if (runs.length === 0) return []
  const [low, high] = extent(runs.map(value))
  return [{ task, arm, low, high, description: `runs ${task} › ${arm}: ${runs.length} runs from ${format(low)} to ${format(high)}` }]
}

/** The forest plot beyond `TASK_ROWS_LIMIT` tasks: a histogram of the tasks' r under the median band, no row per task. */
function forestDistribution(drawn: Comparison['perTask'], parts: { id: string; title: string; bandLayers: readonly unknown[]; bandText: string; leftText: string }): Figure {
  const bins = histogram(drawn.map((pair) => pair.r)).map((bin) => ({
    ...bin,
    description: `${bin.count} task(s) with r from ${percent(bin.start)} to ${percent(bin.end)}`,
  }))
  return {
    id: parts.id,
    title: parts.title,
    caption: `${drawn.length} tasks, too many for a row each: each bar counts the tasks whose r = d / mean control cost falls in its range; ${parts.bandText}${parts.leftText}`,
    marks: { tasks: 0, runs: 0 },
    spec: {
      $schema: SCHEMA,
      width: WIDTH,
      height: 240,
      config: CONFIG,
      layer: [
        ...parts.bandLayers,
        {
          data: { values: bins },
          mark: { type: 'bar', color: '#1b1b1b', opacity: 0.75 },
          encoding: {
            x: { field: 'start', type: 'quantitative', title: 'per-task relative cost change r', axis: { format: '+.0%' } },
            x2: { field: 'end' },
            y: { field: 'count', type: 'quantitative', title: 'tasks' },
            description: { field: 'description' },
          },
        },
      ],
      resolve: { scale: { x: 'shared' } },
    },
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
  if (comparison.perTask.length > TASK_ROWS_LIMIT) return pairedCostScatter(comparison)
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
  const runsOf = indexRuns(records)
  const everyRun = runCount(order, [control, treatment], runsOf) <= RUN_MARKS_LIMIT
  const runs = everyRun
    ? comparison.perTask.flatMap((pair) =>
        [control, treatment].flatMap((arm) =>
          runsOf(pair.task, arm).map((run) => ({
            task: pair.task,
            arm,
            cost: chargedCostUsd(run, budgetUsd, endpoint),
            outcome: run.outcome,
            description: `run ${pair.task} › ${arm} › seed ${run.seed}: ${run.outcome}, $${chargedCostUsd(run, budgetUsd, endpoint).toFixed(4)}${run.outcome === 'timeout' ? ' (the budget cap)' : ''}`,
          })),
        ),
      )
    : []
  const y = { field: 'task', type: 'nominal', title: 'task', sort: order }
  const colour = { field: 'arm', type: 'nominal', title: 'arm', scale: { domain: [control, treatment], range: ['#4c78a8', '#e45756'] } }
  const runLayer = everyRun
    ? {
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
      }
    : {
        data: {
          values: comparison.perTask.flatMap((pair) =>
            [control, treatment].flatMap((arm) =>
              runRange(
                pair.task,
                arm,
                runsOf(pair.task, arm),
                (run) => chargedCostUsd(run, budgetUsd, endpoint),
                (usd) => `$${usd.toFixed(4)}`,
              ),
            ),
          ),
        },
        mark: { type: 'rule', strokeWidth: 3, opacity: 0.6 },
        encoding: {
          x: { field: 'low', type: 'quantitative' },
          x2: { field: 'high' },
          y,
          yOffset: { field: 'arm', type: 'nominal', sort: [control, treatment] },
          color: colour,
          description: { field: 'description' },
        },
      }
  return {
    id: `costs-${treatment}`,
    title: `Per-task cost: ${control} against ${treatment}`,
    caption: everyRun
      ? `The line joins each task's mean cost per arm (large dots); the small marks are the runs: circle solved, cross unsolved, triangle a timeout charged the budget cap.`
      : `The line joins each task's mean cost per arm (large dots); the bars span the costs of the task's runs in each arm (too many runs to draw one by one), a timeout charged the budget cap.`,
    marks: { tasks: lines.length, runs: runs.length },
    spec: rowsOfLayers(ROW, [
      {
        data: { values: lines },
        mark: { type: 'rule', color: '#9a9a9a', strokeWidth: 2 },
        encoding: { x: { field: 'control', type: 'quantitative', title: 'cost per run (USD)' }, x2: { field: 'treatment' }, y, description: { field: 'description' } },
      },
      { data: { values: means }, mark: { type: 'point', filled: true, size: 90, opacity: 0.9 }, encoding: { x: { field: 'cost', type: 'quantitative' }, y, color: colour } },
      runLayer,
    ]),
  }
}

/** The paired costs beyond `TASK_ROWS_LIMIT` tasks: one dot per task, its control mean cost against its treatment mean cost, the diagonal equal cost. */
function pairedCostScatter(comparison: Comparison): Figure {
  const { treatment, control } = comparison
  const points = comparison.perTask.map((pair) => ({
    control: pair.control.meanCostUsd,
    treatment: pair.treatment.meanCostUsd,
    description: `task ${pair.task}: ${control} $${pair.control.meanCostUsd.toFixed(4)} → ${treatment} $${pair.treatment.meanCostUsd.toFixed(4)}`,
  }))
  const [, highest] = extent(points.flatMap((point) => [point.control, point.treatment]))
  const below = points.filter((point) => point.treatment < point.control).length
  return {
    id: `costs-${treatment}`,
    title: `Per-task cost: ${control} against ${treatment}`,
    caption: `${points.length} tasks, too many for a row each: each dot is a task's mean cost per run in ${control} (across) and in ${treatment} (up); below the dashed diagonal ${treatment} cost less (${below} of ${points.length} tasks).`,
    marks: { tasks: points.length, runs: 0 },
    spec: {
      $schema: SCHEMA,
      width: WIDTH,
      height: WIDTH,
      config: CONFIG,
      layer: [
        {
          data: { values: [{ from: 0, to: highest }] },
          mark: { type: 'rule', color: '#222', strokeDash: [4, 3] },
          encoding: { x: { field: 'from', type: 'quantitative' }, y: { field: 'from', type: 'quantitative' }, x2: { field: 'to' }, y2: { field: 'to' } },
        },
        {
          data: { values: points },
          mark: { type: 'point', filled: true, size: 16, opacity: 0.6, color: '#e45756' },
          encoding: {
            x: { field: 'control', type: 'quantitative', title: `${control} mean cost per run (USD)` },
            y: { field: 'treatment', type: 'quantitative', title: `${treatment} mean cost per run (USD)` },
            description: { field: 'description' },
          },
        },
      ],
    },
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
