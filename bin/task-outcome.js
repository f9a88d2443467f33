#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so `npx task-outcome` works from a clone without a build step.
import { register } from 'tsx/esm/api'

register()
// `task-outcome analyze --help | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}
const { main } = await import('../src/cli/main.ts')
process.exitCode = await main(process.argv)
