import { createRequire } from 'node:module'

/** task-outcome's own version (`versions.harness` in every record). */
export const harnessVersion: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version
