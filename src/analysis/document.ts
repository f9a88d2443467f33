import { changeLogLines, contaminationSentence, earlierSpecsSentence } from './change-log.ts'
import { ARTIFACT_FILES, artifactsPath } from '../runs/artifacts.ts'
import type { RecordedRun } from '../runs/record.ts'
import { isScriptedModel } from '../runs/versions.ts'
import type { Comparison } from './comparison.ts'
import { formatNumber, formatP, formatPercent, formatSeeds, formatUsd, formatUsdChange } from './format.ts'
import { stageLabel } from './labels.ts'
import type { AnalysisReport } from './report.ts'
import { integritySentences } from './integrity-summary.ts'
import { sandboxSentences } from './sandbox-summary.ts'
import { costSentences, costsDisagree } from './cost-summary.ts'
import { offTheBooksSentence } from './egress-summary.ts'
import type { RunMeasure } from './secondary.ts'
import type { SkillCheck } from './skill-checks.ts'
import { claim, exploratorySentence, floorSentence, noVerdictSentences, verdictSentence } from './sentences.ts'
import { listSkillChecks } from './skill-checks.ts'
import { PILOT_MIN_TASKS } from './comparison.ts'
import { adjustedSentence, designSentence, outcomeSentence } from './sequential-text.ts'

/** A piece of a readable report; rendered as Markdown (report.md, the CLI) or HTML (report.html). */
export type Block =
  | { readonly kind: 'heading'; readonly level: 1 | 2 | 3; readonly text: string }
  | { readonly kind: 'label'; readonly tag: string; readonly text: string }
  | { readonly kind: 'verdict'; readonly verdict: string; readonly text: string }
  | { readonly kind: 'paragraph'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly string[] }
  | { readonly kind: 'table'; readonly header: readonly string[]; readonly rows: readonly (readonly Cell[])[] }
  | {
      readonly kind: 'figure'
      readonly id: string
      readonly title: string
      readonly caption: string
      readonly svg: string
      readonly marks: { readonly tasks: number; readonly runs: number }
    }

/** A table cell: text, or text linking to a path relative to the report (a run's artifacts). */
export type Cell = string | { readonly text: string; readonly href: string }

/** The figures as rendered SVG (report.html embeds them; report.md names them). */
export interface RenderedFigure {
  readonly id: string
  readonly title: string
  readonly caption: string
  readonly svg: string
  readonly marks: { readonly tasks: number; readonly runs: number }
}

/**
 * Puts the figures in the document, each after its comparison's per-task
 * table (the skill conditions' figure before the design checks): as inline
 * SVG in report.html, as a line naming the figure in report.md.
 */
export function withFigures(blocks: readonly Block[], figures: readonly RenderedFigure[], target: 'html' | 'markdown'): Block[] {
  if (figures.length === 0) return [...blocks]
  const asBlocks = (figure: RenderedFigure): Block[] =>
    target === 'html' ? [{ kind: 'figure', ...figure }] : [{ kind: 'paragraph', text: `Figure (in report.html): ${figure.title}. ${figure.caption}` }]
  const out: Block[] = []
  const placed = new Set<string>()
  for (const block of blocks) {
    if (block.kind === 'heading' && block.text.startsWith('Design checks') && !placed.has('conditions')) {
      for (const figure of figures.filter((f) => f.id === 'conditions')) out.push(...asBlocks(figure))
      placed.add('conditions')
    }
    out.push(block)
    const treatment = perTaskTreatment(block)
    if (treatment !== null) for (const figure of figures.filter((f) => f.id === `forest-${treatment}` || f.id === `costs-${treatment}`)) out.push(...asBlocks(figure))
  }
  for (const figure of figures) if (figure.id === 'conditions' && !placed.has('conditions')) out.push(...asBlocks(figure))
  return out
}

const MEAN_COST = ' mean cost'

/** The treatment whose per-task table this block is (its figures follow it), or null. */
function perTaskTreatment(block: Block): string | null {
  if (block.kind !== 'table' || block.header[0] !== 'task' || block.header.length !== 7) return null
  const column = block.header[2]!
  return column.endsWith(MEAN_COST) ? column.slice(0, -MEAN_COST.length) : null
}

/** Options for the readable document. */
export interface DocumentOptions {
  /** The analysed records: each run gets a row linking its transcript, diff and oracle output under artifacts/. */
  readonly runLinks?: readonly RecordedRun[]
}

function measureText(value: RunMeasure | null, digits = 1): string {
  if (value === null) return '—'
  return `${formatNumber(value.median, digits)} (mean ${formatNumber(value.mean, digits)}; ${value.runs}/${value.of} runs)`
}

/** "confirmatory run" for the pre-registered analysis; an exploratory one never calls anything confirmatory. */
function nextRun(report: AnalysisReport): string {
  return report.analysis.kind === 'pre-registered' ? 'a confirmatory run' : 'a further run'
}

function usdInterval(ci: readonly [number, number]): string {
  const bound = (usd: number) => (usd === -Infinity ? '-∞' : usd === Infinity ? '+∞' : formatUsdChange(usd))
  return `${bound(ci[0])} to ${bound(ci[1])}`
}

function intervalText(ci: readonly [number, number]): string {
  return `${formatPercent(ci[0])} to ${formatPercent(ci[1])}`
}

function criteriaTable(comparison: Comparison, several: boolean): Block {
  const criteria = comparison.decision.criteria!
  return {
    kind: 'table',
    header: ['criterion', 'value', 'needs', 'met'],
    rows: [
      [
        `Wilcoxon signed-rank p (one-sided, exact${several ? ', Holm-adjusted' : ''})`,
        formatP(criteria.wilcoxon.p),
        `< ${criteria.wilcoxon.alpha}`,
        criteria.wilcoxon.met ? 'yes' : 'no',
      ],
      ['upper bound of the 95% interval on the median relative change', formatPercent(criteria.interval.upper), '< 0', criteria.interval.met ? 'yes' : 'no'],
      [
        `tasks solved: ${comparison.treatment} vs ${comparison.control}`,
        `${criteria.solved.treatment} vs ${criteria.solved.control}`,
        `≥ ${criteria.solved.control - criteria.solved.margin} (margin ${criteria.solved.margin})`,
        criteria.solved.met ? 'yes' : 'no',
      ],
    ],
  }
}

/**
 * The report lists every run (with links to its artifacts) while there are
 * at most this many; beyond, it says where each run's artifacts are.
 */
export const RUN_TABLE_LIMIT = 2_000

function runsHeading(level: 2 | 3): Block {
  return { kind: 'heading', level, text: 'Runs (artifacts under artifacts/, beside the report; git-ignored)' }
}

/** Where the runs' artifacts are, for a comparison with too many runs to list. */
function runsElsewhere(count: number, level: 2 | 3): Block[] {
  return [
    runsHeading(level),
    {
      kind: 'paragraph',
      text:
        `${count.toLocaleString('en')} runs, more than the ${RUN_TABLE_LIMIT.toLocaleString('en')} a table here lists: each run's transcript, diff and oracle output ` +
        `are in its own folder, artifacts/<task>/<arm>/seed-<seed>/ (${ARTIFACT_FILES.diff}, ${ARTIFACT_FILES.oracleStdout}), and runs.jsonl holds one line per run with its costs and outcome.`,
    },
  ]
}

/** One row per run of a comparison's arms: outcome, cost, and links to its transcript, diff and oracle output under artifacts/ (beyond `RUN_TABLE_LIMIT` runs, where they are). */
function runBlocks(comparison: Comparison, records: readonly RecordedRun[], level: 2 | 3): Block[] {
  const arms = [comparison.control, comparison.treatment]
  const tasks = new Set(comparison.perTask.map((pair) => pair.task))
  const runs = records.filter((record) => tasks.has(record.task) && arms.includes(record.arm))
  if (runs.length > RUN_TABLE_LIMIT) return runsElsewhere(runs.length, level)
  runs.sort((a, b) => (a.task < b.task ? -1 : a.task > b.task ? 1 : arms.indexOf(a.arm) - arms.indexOf(b.arm) || a.seed - b.seed))
  if (runs.length === 0) return []
  return [
    runsHeading(level),
    {
      kind: 'table',
      header: ['task', 'arm', 'seed', 'outcome', 'agent cost', 'metered cost', 'transcript', 'diff', 'oracle output'],
      rows: runs.map((run) => {
        const dir = artifactsPath(run)
        return [
          run.task,
          run.arm,
          String(run.seed),
          run.outcome,
          formatUsd(run.costUsd),
          run.metered === undefined || run.metered === null
            ? '—'
            : `${formatUsd(run.metered.costUsd)}${costsDisagree(run.costUsd, run.metered.costUsd) && run.outcome !== 'timeout' ? ' cost-disagrees' : ''}`,
          typeof run.transcript === 'string' ? { text: 'transcript', href: run.transcript } : '—',
          { text: ARTIFACT_FILES.diff, href: `${dir}/${ARTIFACT_FILES.diff}` },
          { text: 'stdout', href: `${dir}/${ARTIFACT_FILES.oracleStdout}` },
        ]
      }),
    },
  ]
}

function comparisonBlocks(report: AnalysisReport, comparison: Comparison, several: boolean, options: DocumentOptions = {}): Block[] {
  const { primary, mcnemar, effect, power, treatment, control } = comparison
  const blocks: Block[] = []
  if (several) blocks.push({ kind: 'heading', level: 2, text: `${treatment} against ${control}` })
  const offTheBooks = offTheBooksSentence(report.egress, treatment, control)
  blocks.push({ kind: 'verdict', verdict: comparison.decision.verdict, text: offTheBooks === null ? verdictSentence(comparison) : `${verdictSentence(comparison)} ${offTheBooks}` })
  blocks.push({
    kind: 'heading',
    level: several ? 3 : 2,
    text: report.analysis.kind === 'pre-registered' ? 'Decision rule (pre-registered)' : 'Decision rule (the pre-registered rule, applied to an exploratory analysis)',
  })
  blocks.push({ kind: 'paragraph', text: `The claim "${claim(treatment, control)}" is supported only when all three hold.` })
  blocks.push(criteriaTable(comparison, several))
  blocks.push({ kind: 'heading', level: several ? 3 : 2, text: 'Endpoints' })
  blocks.push({
    kind: 'list',
    items: [
      `Primary, cost: exact one-sided Wilcoxon signed-rank on d = mean cost (${treatment}) − mean cost (${control}) per task: ` +
        `V = ${formatNumber(primary.statistic, 1)}, p = ${formatP(primary.p)}` +
        (several ? ` (Holm-adjusted ${formatP(primary.pAdjusted)})` : '') +
        `, n = ${primary.n} task(s) with a non-zero d${primary.zeros > 0 ? ` (${primary.zeros} zero d dropped)` : ''}` +
        `${primary.ties ? '; tied |d| got midranks, p from the exact distribution of those ranks' : ''}.`,
      `Floor: with n = ${primary.n}${primary.family > 1 ? ` and Holm over ${primary.family} claim arms` : ''} the smallest p the exact test can reach is ${formatP(primary.minimumP)}` +
        (floorSentence(comparison, report.parameters.alpha) === null
          ? ` (below α = ${report.parameters.alpha}).`
          : `: this design cannot support the claim at n = ${primary.n}; it needs n ≥ ${primary.tasksForAlpha}.`),
      `Co-primary, solve rate: exact McNemar on the tasks only one arm solves: b = ${mcnemar.b} (only ${treatment}), ` +
        `c = ${mcnemar.c} (only ${control}), p = ${formatP(mcnemar.p)}. Tasks solved: ${comparison.solved.treatment} against ${comparison.solved.control}, ` +
        `a difference of ${comparison.solved.difference > 0 ? '+' : ''}${comparison.solved.difference}.`,
      `Effect: median per-task relative cost change ${formatPercent(effect.medianRelativeChange)}, ` +
        `95% percentile bootstrap interval ${intervalText(effect.ci95)} (${effect.resamples} resamples of tasks, seed ${effect.seed}).`,
      `Hodges–Lehmann estimate of the median d (the median of the Walsh averages): ${formatUsdChange(comparison.hodgesLehmann.estimate)} per task, ` +
        `95% interval ${usdInterval(comparison.hodgesLehmann.ci95)} ` +
        (comparison.hodgesLehmann.method === 'exact'
          ? '(by inverting the exact signed-rank test, ties included).'
          : '(NORMAL APPROXIMATION: more than 60 tasks, too many to invert the exact test in a second).'),
      power.sigma === null
        ? 'Power: fewer than two tasks with a finite relative change, so no standard deviation.'
        : `Power: σ of the per-task relative change = ${formatNumber(power.sigma, 4)}` +
          `${power.tasksUsed < comparison.tasks ? ` (over ${power.tasksUsed} tasks whose control cost something)` : ''}; ` +
          `${nextRun(report)} needs n = ⌈((z₁₋α + z_power)·σ/δ)² / 0.955⌉ = ${power.formulaTasks} task(s)` +
          (power.tasksNeeded !== power.formulaTasks ? `, raised to ${power.tasksNeeded}, the fewest with which the exact test can reach α` : '') +
          ` (α = ${report.parameters.alpha} one-sided, power ${report.parameters.power}, δ = ${report.parameters.effect}: a ${formatNumber(report.parameters.effect * 100, 1)}% median reduction).` +
          (power.tasksUsed < PILOT_MIN_TASKS ? ` Warning: σ rests on ${power.tasksUsed} task(s), fewer than ${PILOT_MIN_TASKS}; it is too unstable to size a run on.` : ''),
    ],
  })
  blocks.push({ kind: 'heading', level: several ? 3 : 2, text: 'Per task' })
  blocks.push({
    kind: 'table',
    header: ['task', `${control} mean cost`, `${treatment} mean cost`, 'd', 'r', `${control} solved`, `${treatment} solved`],
    rows: comparison.perTask.map((pair) => [
      pair.task,
      formatUsd(pair.control.meanCostUsd),
      formatUsd(pair.treatment.meanCostUsd),
      formatUsdChange(pair.d),
      formatPercent(pair.r),
      `${pair.control.solved ? 'yes' : 'no'} (${pair.control.solvedSeeds}/${pair.control.seeds})`,
      `${pair.treatment.solved ? 'yes' : 'no'} (${pair.treatment.solvedSeeds}/${pair.treatment.seeds})`,
    ]),
  })
  blocks.push(...repositoryBlocks(report, comparison, several))
  if (options.runLinks !== undefined) blocks.push(...runBlocks(comparison, options.runLinks, several ? 3 : 2))
  return blocks
}

/** The comparison's endpoints per source repository (`byRepository`), when the tasks come from more than one. */
function repositoryBlocks(report: AnalysisReport, comparison: Comparison, several: boolean): Block[] {
  const breakdown = report.byRepository?.find((entry) => entry.treatment === comparison.treatment)
  if (breakdown === undefined) return []
  const { treatment, control } = comparison
  return [
    { kind: 'heading', level: several ? 3 : 2, text: 'By repository (exploratory)' },
    {
      kind: 'paragraph',
      text:
        `The same endpoints on each repository's tasks alone, unadjusted and never judged: the verdict rests on the pooled test above, ` +
        `the pre-registered one over all ${comparison.tasks} tasks.`,
    },
    {
      kind: 'table',
      header: ['repository', 'tasks', 'V', 'p (one-sided)', 'floor of p', 'Hodges–Lehmann d', `${control} solved`, `${treatment} solved`, 'McNemar p'],
      rows: breakdown.repositories.map((entry) => [
        entry.repository,
        String(entry.tasks),
        formatNumber(entry.primary.statistic, 1),
        formatP(entry.primary.p),
        formatP(entry.primary.minimumP),
        formatUsdChange(entry.hodgesLehmann.estimate),
        String(entry.solved.control),
        String(entry.solved.treatment),
        formatP(entry.mcnemar.p),
      ]),
    },
  ]
}

function secondaryBlocks(report: AnalysisReport): Block[] {
  const secondary = report.secondary!
  return [
    { kind: 'heading', level: 2, text: 'Per arm (secondary endpoints: reported, not tested)' },
    {
      kind: 'table',
      header: ['arm', 'solved tasks', 'runs', 'timeouts', 'total cost', 'cost per solved task', 'tool calls before first edit', 'turns', 'wall s', 'gold file touched'],
      rows: report.arms.map((arm) => {
        const s = secondary[arm]!
        return [
          arm === report.control ? `${arm} (control)` : arm,
          `${s.solvedTasks}/${s.tasks}`,
          `${s.runs} (${s.solvedRuns} solved)`,
          String(s.timeouts),
          formatUsd(s.totalCostUsd),
          s.costPerSolvedTaskUsd === null ? '—' : `${formatUsd(s.costPerSolvedTaskUsd)} (${s.solvedTasks}/${s.tasks} tasks)`,
          measureText(s.toolCallsBeforeFirstEdit),
          measureText(s.turns),
          measureText(s.wallSeconds),
          s.goldFileTouched === null ? '—' : `${s.goldFileTouched.runs}/${s.goldFileTouched.of} runs`,
        ]
      }),
    },
    {
      kind: 'paragraph',
      text:
        "Measures over runs are shown as median (mean; the runs behind the measure of the arm's runs: a run that never edited has no tool calls before its first edit, " +
        'an agent that reports no turns has none); a timeout counts as unsolved at the budget cap.',
    },
  ]
}

function dataBlocks(report: AnalysisReport): Block[] {
  const p = report.parameters
  const items = [
    `Experiment ${report.experiment}${report.stage === null ? '' : ` (${report.stage})`}: ${report.tasks} task(s) × ${report.arms.length} arms (${report.arms.join(', ')}; control ${report.control}) × ${report.seeds} seed(s).`,
    `Decision parameters: α = ${p.alpha}, non-inferiority margin ${p.margin} task(s), ${p.resamples} bootstrap resamples, seed ${p.bootstrapSeed}; power analysis at ${p.power} for a ${formatNumber(p.effect * 100, 1)}% median reduction.`,
    p.budgetUsd === null ? 'Budget cap unknown (no spec): timeouts are charged their recorded cost.' : `Budget cap ${formatUsd(p.budgetUsd)} per run: each timeout is charged it.`,
    'Costs are compared to a billionth of a dollar; a task whose control cost nothing has r = 0 if the treatment cost nothing too, else +∞ (the worst case for the claim).',
  ]
  return [
    { kind: 'heading', level: 2, text: 'Data' },
    { kind: 'list', items },
  ]
}

/** The pre-registration's change log (every report prints it) and the runs of earlier specs left out. */
function changeLogBlocks(report: AnalysisReport): Block[] {
  const earlier = earlierSpecsSentence(report)
  const lines = changeLogLines(report)
  return [
    { kind: 'heading', level: 2, text: 'Change log' },
    lines.length === 0 ? { kind: 'paragraph', text: 'No change since the pre-registration.' } : { kind: 'list', items: lines },
    ...(earlier === null ? [] : [{ kind: 'paragraph', text: earlier } as const]),
    ...promptAllowanceBlocks(report),
  ]
}

/** The gold module names prompts were allowed to use (recorded by select from the prompts' front matter), each with its reason. */
function promptAllowanceBlocks(report: AnalysisReport): Block[] {
  if (report.promptAllowances.length === 0) return []
  return [
    { kind: 'heading', level: 2, text: 'Prompt allowances' },
    {
      kind: 'paragraph',
      text: "These prompts use a word that is also a gold file's module name; each was allowed, with its reason, before the draw:",
    },
    { kind: 'list', items: report.promptAllowances.map((row) => `${row.task}: "${row.word}" (${row.reason})`) },
  ]
}

/** The contamination flag (tasks the model may have seen in training), when the spec names a training cutoff. */
function contaminationBlocks(report: AnalysisReport): Block[] {
  const sentence = contaminationSentence(report)
  if (sentence === null) return []
  return [
    { kind: 'heading', level: 2, text: 'Contamination' },
    { kind: 'paragraph', text: sentence },
    ...(report.contamination!.flagged.length === 0
      ? []
      : [
          {
            kind: 'table',
            header: ['task', 'fix committed', 'training cutoff'],
            rows: report.contamination!.flagged.map((task) => [task.task, task.fixDate, report.contamination!.trainingCutoff]),
          } as const,
        ]),
  ]
}

function missingBlocks(report: AnalysisReport): Block[] {
  return [...gapBlocks('Missing runs', 'seeds missing', report.missingRuns), ...gapBlocks('Runs not in the plan', 'seeds', report.unexpectedRuns)]
}

/** A heading and a table of (task, arm, seeds) gaps; nothing when there are none. */
function gapBlocks(title: string, seedsHeader: string, gaps: AnalysisReport['missingRuns']): Block[] {
  if (gaps.length === 0) return []
  return [
    { kind: 'heading', level: 2, text: title },
    { kind: 'table', header: ['task', 'arm', seedsHeader], rows: gaps.map((gap) => [gap.task, gap.arm, formatSeeds(gap.seeds)]) },
  ]
}

/** A skill experiment's design checks, one row each (reported, not part of the decision rule). */
function skillCheckBlocks(report: AnalysisReport): Block[] {
  const checks: SkillCheck[] = listSkillChecks(report.skillChecks)
  if (checks.length === 0) return []
  return [
    { kind: 'heading', level: 2, text: 'Design checks (skills; reported, never in the claim family, never the verdict)' },
    {
      kind: 'table',
      header: ['check', 'median change', '95% interval', 'p (two-sided)', 'solved', 'expected', 'holds'],
      rows: checks.map((check) => [
        `${check.arm} against ${check.reference}`,
        formatPercent(check.medianRelativeChange),
        intervalText(check.ci95),
        formatP(check.pTwoSided),
        `${check.solved.arm} vs ${check.solved.reference}`,
        check.expectation,
        check.holds ? 'yes' : 'no',
      ]),
    },
  ]
}

/** The sections every report ends with, verdict or not: data, cost, egress, sandbox, integrity, provenance, contamination, change log. */
function closingBlocks(report: AnalysisReport): Block[] {
  return [
    ...dataBlocks(report),
    ...costBlocks(report),
    ...egressBlocks(report),
    ...sandboxBlocks(report),
    ...integrityBlocks(report),
    ...provenanceBlocks(report),
    ...contaminationBlocks(report),
    ...changeLogBlocks(report),
  ]
}

/**
 * The readable report as blocks: title, stage label, verdict, the decision
 * rule's table, endpoints, per-task and per-arm tables, data and parameters;
 * or, on incomplete data, no verdict and what is missing.
 */
export function reportDocument(report: AnalysisReport, options: DocumentOptions = {}): Block[] {
  const blocks: Block[] = [{ kind: 'heading', level: 1, text: `task-outcome report: ${report.experiment}` }]
  blocks.push(...labelBlocks(report))
  if (!report.complete) {
    blocks.push({ kind: 'verdict', verdict: 'no verdict', text: noVerdictSentences(report).join(' ') })
    return [...blocks, ...sequentialBlocks(report), ...missingBlocks(report), ...closingBlocks(report)]
  }
  const several = report.comparisons.length > 1
  if (several) {
    const supported = report.comparisons.filter((comparison) => comparison.decision.supported).map((comparison) => comparison.treatment)
    blocks.push({
      kind: 'verdict',
      verdict: report.decision.verdict,
      text:
        `${report.comparisons.length} arms against ${report.control}, Holm-adjusted: ` +
        (supported.length === 0 ? 'the claim is supported for none.' : `the claim is supported for ${supported.join(', ')}.`),
    })
    blocks.push({
      kind: 'table',
      header: ['arm', 'verdict', 'median change', '95% interval', 'p (Holm)', 'solved'],
      rows: report.comparisons.map((comparison) => [
        comparison.treatment,
        comparison.decision.verdict,
        formatPercent(comparison.effect.medianRelativeChange),
        intervalText(comparison.effect.ci95),
        formatP(comparison.primary.pAdjusted),
        `${comparison.solved.treatment} vs ${comparison.solved.control}`,
      ]),
    })
  }
  for (const comparison of report.comparisons) blocks.push(...comparisonBlocks(report, comparison, several, options))
  return [...blocks, ...sequentialBlocks(report), ...skillCheckBlocks(report), ...secondaryBlocks(report), ...closingBlocks(report)]
}

/** The labels about how this analysis was made: EXPLORATORY (what departed), COMPLETENESS NOT CHECKED, UNSANDBOXED. */
export function analysisLabels(report: AnalysisReport): { readonly tag: string; readonly text: string }[] {
  const labels: { tag: string; text: string }[] = []
  const exploratory = exploratorySentence(report)
  if (exploratory !== null) labels.push({ tag: 'EXPLORATORY', text: exploratory })
  if (!report.analysis.completenessChecked) {
    labels.push({
      tag: 'COMPLETENESS NOT CHECKED',
      text: 'No plan was read, so runs that were planned but never recorded at all (a task, a seed, a shard) cannot be seen as missing.',
    })
  }
  // Scripted-model data is a demonstration whatever stage its spec names.
  if (report.stage !== 'demo' && report.versions.model.some(isScriptedModel)) {
    labels.push({ tag: 'DEMO', text: 'The model is scripted (versions.model scripted:…); these numbers demonstrate the harness.' })
  }
  if (report.sandbox.unsandboxed) labels.push({ tag: 'UNSANDBOXED', text: sandboxSentences(report.sandbox)[0]! })
  if (report.cost.disagreements.length > 0) labels.push({ tag: 'COST DISAGREES', text: costSentences(report.cost)[1]! })
  return labels
}

/** The stage's label (PILOT, DEMO, …), null for a confirmatory run. */
export function reportStageLabel(report: AnalysisReport): { readonly tag: string; readonly text: string } | null {
  return stageLabel(report.stage, report.analysis.kind === 'exploratory')
}

function labelBlocks(report: AnalysisReport): Block[] {
  const stage = reportStageLabel(report)
  return [...analysisLabels(report), ...(stage === null ? [] : [stage])].map((label) => ({ kind: 'label', tag: label.tag, text: label.text }))
}

function versionText(values: readonly (string | null)[]): string {
  return values.length === 0 ? '—' : values.map((value) => value ?? 'none').join(', ')
}

/** Where the numbers come from: the spec hash and every version the runs recorded. */
function provenanceBlocks(report: AnalysisReport): Block[] {
  const v = report.versions
  return [
    { kind: 'heading', level: 2, text: 'Provenance' },
    {
      kind: 'table',
      header: ['what', 'value'],
      rows: [
        ['stage', report.stage ?? 'unknown (no spec.json)'],
        ['analysis', report.analysis.kind === 'pre-registered' ? 'the pre-registered analysis' : `exploratory: ${report.analysis.departures.join('; ')}`],
        ['spec SHA-256', report.specSha256 ?? '—'],
        ['harness (task-outcome)', versionText(v.harness)],
        ['agent', versionText(v.agent)],
        ['model', versionText(v.model)],
        ['tool under test', versionText(v.tool)],
        ['node', versionText(v.node)],
        ['sandbox', versionText(v.sandbox)],
        ['test runner', versionText(v.testRunner)],
      ],
    },
  ]
}

/** The integrity flags: runs whose change can disarm tests (listed, not judged). */
function integrityBlocks(report: AnalysisReport): Block[] {
  const [first, ...runs] = integritySentences(report.integrity)
  if (first === undefined) return []
  return [
    { kind: 'heading', level: 2, text: 'Integrity' },
    { kind: 'paragraph', text: first },
    { kind: 'list', items: runs.map((line) => line.trim()) },
  ]
}

/** The cost: which one is the endpoint, and every run whose agent and metered costs disagree. */
function costBlocks(report: AnalysisReport): Block[] {
  const [first, disagreeing] = costSentences(report.cost)
  const { disagreements } = report.cost
  return [
    { kind: 'heading', level: 2, text: 'Cost' },
    { kind: 'paragraph', text: first! },
    ...(disagreements.length === 0
      ? []
      : [
          { kind: 'paragraph' as const, text: disagreeing! },
          {
            kind: 'table' as const,
            header: ['task', 'arm', 'seed', 'agent cost', 'metered cost', 'difference'],
            rows: disagreements.map((run) => [
              run.task,
              run.arm,
              String(run.seed),
              formatUsd(run.agentUsd),
              formatUsd(run.meteredUsd),
              formatUsdChange(run.agentUsd - run.meteredUsd),
            ]),
          },
        ]),
  ]
}

/** Reached beyond the model: per arm, every host its runs contacted through the sandbox's proxy. */
function egressBlocks(report: AnalysisReport): Block[] {
  const arms = Object.entries(report.egress.arms)
  const blocks: Block[] = [{ kind: 'heading', level: 2, text: 'Reached beyond the model' }]
  if (arms.every(([, hosts]) => hosts.length === 0)) {
    return [...blocks, { kind: 'paragraph', text: "No run reached any host through the sandbox's proxy: the model traffic went through the metering gateway alone." }]
  }
  blocks.push({
    kind: 'paragraph',
    text: "Hosts the runs reached through the sandbox's proxy. Spend on a model or embedding host here is not in the cost (the metering gateway counts only the agent's own model traffic).",
  })
  blocks.push({
    kind: 'table',
    header: ['arm', 'host', 'model API', 'runs', 'connections', 'bytes up', 'bytes down'],
    rows: arms.flatMap(([arm, hosts]) =>
      hosts.map((host) => [arm, host.host, host.modelApi ? 'yes' : 'no', String(host.runs), String(host.connections), String(host.bytesUp), String(host.bytesDown)]),
    ),
  })
  return blocks
}

/** The sandbox: which one, and the runs that tried to reach beyond it (listed, not judged). */
function sandboxBlocks(report: AnalysisReport): Block[] {
  const [first, ...rest] = sandboxSentences(report.sandbox)
  if (first === undefined) return []
  const runs = rest.slice(1).map((line) => line.trim())
  return [
    { kind: 'heading', level: 2, text: 'Sandbox' },
    { kind: 'paragraph', text: first },
    ...(rest.length === 0
      ? []
      : [
          { kind: 'paragraph' as const, text: rest[0]! },
          { kind: 'list' as const, items: runs },
        ]),
  ]
}

/** A sequential design: its looks, which stopped it, the adjusted p and the repeated interval. */
function sequentialBlocks(report: AnalysisReport): Block[] {
  const analysis = report.sequential
  if (analysis === null) return []
  const adjusted = adjustedSentence(analysis)
  return [
    { kind: 'heading', level: 2, text: 'Sequential design' },
    { kind: 'paragraph', text: `${designSentence(analysis)}. ${outcomeSentence(analysis)}.${adjusted === null ? '' : ` ${adjusted}.`}` },
    {
      kind: 'table',
      header: ['look', 'tasks', 'V', 'p', 'boundary (V ≤)', 'nominal level', 'α spent / allowed', 'repeated interval', 'solved', 'action'],
      rows: analysis.looks.map((look) => [
        `${look.look} of ${look.of}`,
        String(look.tasks),
        formatNumber(look.statistic, 1),
        formatP(look.p),
        look.critical === null ? 'none' : formatNumber(look.critical, 1),
        formatP(look.nominalLevel),
        `${formatP(look.spent)} / ${formatP(look.allowed)}${look.method === 'monte carlo' ? ` (MC ±${formatP(look.error)})` : ''}`,
        `${formatNumber(look.interval.confidence * 100, 1)}%: ${formatPercent(look.interval.ci[0])} to ${formatPercent(look.interval.ci[1])}`,
        `${look.solved.treatment} vs ${look.solved.control}`,
        look.action,
      ]),
    },
  ]
}
