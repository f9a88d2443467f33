#!/usr/bin/env node
// Installed from npm, the CLI runs the built JavaScript in dist/. In a clone of the repository (src/ beside bin/)
// it runs the TypeScript sources through tsx, so `npx task-outcome` works there without a build step.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

// `task-outcome analyze --help | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}
const root = path.resolve(import.meta.dirname, '..')
const source = path.join(root, 'src', 'cli', 'main.ts')
let entry = path.join(root, 'dist', 'src', 'cli', 'main.js')
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api')
  register()
  entry = source
}
const { main } = await import(pathToFileURL(entry).href)
process.exitCode = await main(process.argv)
