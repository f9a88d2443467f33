import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * `npm run bench [-- <filter> ...]`: runs every `bench/perf/*.bench.ts` in
 * sorted order (only those whose file name contains one of the filters, when
 * given). Each module exports `default async function run(): Promise<void>`
 * that prints its own table, with ratios against a baseline measured in the
 * same run: figures from one machine at one moment are only comparable with
 * each other.
 */

const here = path.dirname(fileURLToPath(import.meta.url))

/** The benchmark files, sorted, kept when their name contains any of the filters (all when none). */
export function benchmarkFiles(filters: readonly string[]): string[] {
  return readdirSync(here)
    .filter((name) => name.endsWith('.bench.ts'))
    .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
    .sort()
}

async function main(filters: readonly string[]): Promise<void> {
  const files = benchmarkFiles(filters)
  if (files.length === 0) {
    console.error(`no benchmark in bench/perf matches ${filters.join(', ')}`)
    process.exitCode = 1
    return
  }
  console.log(`node ${process.version} · ${files.length} benchmark file(s): ${files.join(', ')}`)
  for (const file of files) {
    const module = (await import(pathToFileURL(path.join(here, file)).href)) as { default?: () => Promise<void> }
    if (typeof module.default !== 'function') throw new Error(`bench/perf/${file} must export default async function run(): Promise<void>`)
    console.log(`\n── ${file}`)
    await module.default()
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2).filter((argument) => argument !== '--')).catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
