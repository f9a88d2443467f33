import type { Stage } from './settings.ts'

/**
 * The label a report carries for its stage: a pilot is exploratory, a demo's
 * model is scripted, a smoke test and the examples check the machinery. Only
 * a confirmatory run (or one of unknown stage) goes unlabelled. An exploratory
 * analysis carries its own label (see `exploratorySentence`), and its pilot
 * label does not speak of the confirmatory run.
 */
export function stageLabel(stage: Stage | null, exploratory = false): { readonly tag: string; readonly text: string } | null {
  switch (stage) {
    case 'pilot':
      return {
        tag: 'PILOT',
        text: exploratory
          ? 'Exploratory: this result is not quoted as a product claim.'
          : 'Exploratory: this result sizes the confirmatory run and is not quoted as a product claim.',
      }
    case 'demo':
      return { tag: 'DEMO', text: 'The model is scripted; these numbers demonstrate the harness.' }
    case 'smoke':
      return { tag: 'SMOKE TEST', text: 'It checks the harness end to end; its runs are not evidence and are never pooled with a pilot.' }
    case 'example':
      return { tag: 'EXAMPLE', text: 'Built-in agents with known answers; these numbers demonstrate the harness.' }
    default:
      return null
  }
}
