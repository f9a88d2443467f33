import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { readRecordedSpec } from '../../runs/spec-file.ts'

/** A path as typed from the working folder: relative inside it, absolute outside it. */
function typed(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/')
}

/** The `select` command that draws the confirmatory task set, and what it was built from. */
export interface ConfirmatoryCommand {
  readonly command: string
  /** Why parts of the command are placeholders, when they are. */
  readonly note: string | null
  /**
   * How many candidates the pilot's walk never reached (selection.json's `not reached`): at most that many are
   * left for the confirmatory draw (its own exclusions and the flaky check may take more). Null when unknown.
   */
  readonly unreached: number | null
}

/**
 * The exact `select` command for the confirmatory draw: the pilot's
 * candidates file and seed (from its task set's selection.json), a new set
 * beside the pilot's, `--count` tasks, and `--exclude-tasks-of` the pilot's
 * set so none of its tasks is drawn again. The pilot's set is found through
 * spec.json (the experiment file and its `tasks.dir`).
 */
export function confirmatorySelectCommand(outDir: string, count: number): ConfirmatoryCommand {
  const recorded = readRecordedSpec(outDir)
  const tasks = recorded?.manifest.experiment.tasks as { dir?: string } | undefined
  if (recorded?.source === undefined) {
    return {
      command: `npx task-outcome select --candidates <the pilot's candidates.json> --out <a new task set> --count ${count} --exclude-tasks-of <the pilot's task set>`,
      note: "spec.json does not name the experiment file, so the pilot's task set is not known: fill in the placeholders.",
      unreached: null,
    }
  }
  const setDir = path.resolve(path.dirname(path.resolve(recorded.source.file)), tasks?.dir ?? '.')
  const confirmatory = path.join(path.dirname(setDir), 'confirmatory')
  const selectionFile = path.join(setDir, 'selection.json')
  if (!existsSync(selectionFile)) {
    return {
      command: `npx task-outcome select --candidates <candidates.json> --out ${typed(confirmatory)} --count ${count} --exclude-tasks-of ${typed(setDir)}`,
      note: `${typed(setDir)} has no selection.json (its tasks were not drawn by select): name the candidates file harvest wrote.`,
      unreached: null,
    }
  }
  const selection = JSON.parse(readFileSync(selectionFile, 'utf8')) as { seed: number; candidates: string; walk?: { status: string }[] }
  return {
    command:
      `npx task-outcome select --candidates ${typed(path.resolve(setDir, selection.candidates))} --out ${typed(confirmatory)} ` +
      `--seed ${selection.seed} --count ${count} --exclude-tasks-of ${typed(setDir)}`,
    note: null,
    unreached: Array.isArray(selection.walk) ? selection.walk.filter((entry) => entry.status === 'not reached').length : null,
  }
}
