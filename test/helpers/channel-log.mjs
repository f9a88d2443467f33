// Loaded with `node --import` into a Vitest process a test starts: appends one line per message of task-outcome's
// diagnostics channels (`<pid> <channel> <json>`) to $TASK_OUTCOME_CHANNEL_LOG. It only listens; the harness is
// unchanged (a channel nobody subscribes to costs nothing).
import { subscribe } from 'node:diagnostics_channel'
import { appendFileSync } from 'node:fs'

const log = process.env.TASK_OUTCOME_CHANNEL_LOG
if (log !== undefined) {
  for (const name of ['task-outcome:runs-read', 'task-outcome:experiment-prepared']) {
    subscribe(name, (message) => appendFileSync(log, `${process.pid} ${name} ${JSON.stringify(message)}\n`))
  }
}
