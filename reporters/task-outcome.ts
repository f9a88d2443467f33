import type { Reporter } from 'vitest/reporters'
export default class TaskOutcomeReporter implements Reporter {}
