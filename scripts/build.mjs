#!/usr/bin/env node
// Builds the published package: ESM JavaScript and declarations from src/ and reporters/ into dist/ (tsc with
// tsconfig.build.json, which rewrites the sources' `.ts` imports to `.js`), plus every file tsc does not emit
// that the code reads at run time (the Cursor runner `.mjs`, READMEs beside the code), copied as they are.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const dist = path.join(root, 'dist')
rmSync(dist, { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root })

/** Copies every file under `dir` that is not TypeScript, keeping its path relative to the root. */
function copyAssets(dir) {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name)
    if (entry.isDirectory()) copyAssets(relative)
    else if (entry.isFile() && !entry.name.endsWith('.ts')) {
      mkdirSync(path.dirname(path.join(dist, relative)), { recursive: true })
      copyFileSync(path.join(root, relative), path.join(dist, relative))
    }
  }
}
for (const dir of ['src', 'reporters']) copyAssets(dir)
