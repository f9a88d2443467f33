import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'

// Every process the harness starts goes through src/sandbox/ (process/run-process.ts, and the
// sandbox's own overlay holder and probe): one termination policy, one place for the sandbox's
// walls. This reads every import of src/ and reporters/ and fails on a file elsewhere that could
// start a process itself.

const root = path.resolve(import.meta.dirname, '../../..')

/** Modules that start processes. */
const STARTS_PROCESSES = new Set(['execa', 'child_process', 'node:child_process', 'cross-spawn', 'tinyexec', 'nano-spawn', 'zx', 'simple-git'])

/**
 * simple-git, where it may stay: it runs the harness's own git only on repositories the agent never
 * touches (the task's source repository and the templates made from it before any run; harvest's
 * scratch clones). A new use needs the same check and a line here.
 */
const SIMPLE_GIT_ALLOWED = new Set(['src/workspace/git.ts', 'src/workspace/repository.ts', 'src/curate/harvest/scan.ts'])

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const file = `${dir}/${name}`
    if (statSync(path.join(root, file)).isDirectory()) return sourceFiles(file)
    return /\.(ts|mts|cts|mjs|cjs|js)$/.test(name) && !name.endsWith('.d.ts') ? [file] : []
  })
}

/** The process-starting modules `source` imports (static, dynamic, `require`, type-only included). */
function processImports(source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((specifier) => STARTS_PROCESSES.has(specifier))
}

/** Files outside src/sandbox/ that import a process-starting module, as `file: module`. */
function offenders(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = []
  for (const [file, source] of files) {
    if (file.startsWith('src/sandbox/')) continue
    for (const specifier of processImports(source)) {
      if (specifier === 'simple-git' && SIMPLE_GIT_ALLOWED.has(file)) continue
      found.push(`${file}: ${specifier}`)
    }
  }
  return found
}

describe('only src/sandbox/ starts processes', () => {
  test('no file of src/ or reporters/ outside src/sandbox/ imports execa, child_process or another process starter', () => {
    const files = new Map(['src', 'reporters'].flatMap(sourceFiles).map((file) => [file, readFileSync(path.join(root, file), 'utf8')] as const))
    expect(files.size).toBeGreaterThan(100)
    expect(offenders(files), 'start it through runProcess (src/sandbox/process/run-process.ts) with an explicit sandbox or UNSANDBOXED_HOST').toEqual([])
  })

  test('the check finds every form of import, and allows simple-git only where it was checked', () => {
    const planted = new Map([
      ['src/oracle/a.ts', "import { execa } from 'execa'"],
      ['src/runs/b.ts', "const { spawn } = require('child_process')"],
      ['reporters/c.ts', "const cp = await import('node:child_process')"],
      ['src/workspace/d.ts', "import type { ChildProcess } from 'node:child_process'"],
      ['src/runs/e.ts', "import { simpleGit } from 'simple-git'"],
      ['src/workspace/git.ts', "import { simpleGit } from 'simple-git'"],
      ['src/sandbox/process/run-process.ts', "import { execa } from 'execa'"],
      ['src/agents/f.ts', "import { spawn } from 'node:child_process_like'"],
    ])
    expect(offenders(planted)).toEqual([
      'src/oracle/a.ts: execa',
      'src/runs/b.ts: child_process',
      'reporters/c.ts: node:child_process',
      'src/workspace/d.ts: node:child_process',
      'src/runs/e.ts: simple-git',
    ])
  })
})
