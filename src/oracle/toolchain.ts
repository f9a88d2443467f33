import { existsSync, realpathSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runProcess, UNSANDBOXED_HOST } from '../sandbox/index.ts'

/**
 * The oracle's toolchain: `node`, `python3` and `bash`, resolved by the
 * harness to absolute paths before the runs, and the PATH the oracle's
 * processes get, which finds exactly those first. The PATH the harness was
 * started with is not trusted as it is: under `npx` it begins with the
 * project's `node_modules/.bin`, and an agent (or anything else) that can
 * write a `node` there would fake the oracle's verdict.
 */
export interface OracleToolchain {
  /** The oracle's PATH: the resolved binaries' folders, then the cleaned host PATH. */
  readonly path: string
  /** Each tool's absolute path (python3 absent when the machine has none). */
  readonly binaries: Readonly<Record<string, string>>
  /** `versions.toolchain`: `node v24.1.0 /usr/bin/node; python3 3.11.2 /usr/bin/python3.11; bash 5.2.15 /usr/bin/bash`. */
  readonly label: string
}

function isExecutable(file: string): boolean {
  try {
    return statSync(file).isFile() && (statSync(file).mode & 0o111) !== 0
  } catch {
    return false
  }
}

/**
 * The host PATH without the folders nobody vouches for: relative entries,
 * anything inside `exclude` (the project, the workspace root, the templates)
 * and any `node_modules/.bin`.
 */
export function cleanPath(hostPath: string | undefined, exclude: readonly string[]): string[] {
  const inside = (dir: string) => exclude.some((root) => dir === root || dir.startsWith(root + path.sep))
  const kept: string[] = []
  for (const dir of (hostPath ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir) || !existsSync(dir)) continue
    const real = realpathSync(dir)
    if (inside(dir) || inside(real) || dir.split(path.sep).includes('node_modules') || real.split(path.sep).includes('node_modules')) continue
    if (!kept.includes(dir)) kept.push(dir)
  }
  return kept
}

function find(name: string, dirs: readonly string[]): string | null {
  for (const dir of dirs) if (isExecutable(path.join(dir, name))) return path.join(dir, name)
  return null
}

async function firstLine(file: string, args: readonly string[], env: Record<string, string>): Promise<string | null> {
  const result = await runProcess({ file, args }, { cwd: os.tmpdir(), env, timeoutMs: 10_000, sandbox: UNSANDBOXED_HOST }).catch(() => null)
  if (result === null || result.exitCode !== 0) return null
  return `${result.stdout}\n${result.stderr}`.trim().split('\n')[0]?.trim() ?? null
}

/** Resolves the oracle's toolchain (see `OracleToolchain`); `exclude` are the folders whose PATH entries are dropped. */
export async function resolveOracleToolchain(hostPath: string | undefined, exclude: readonly string[]): Promise<OracleToolchain> {
  const dirs = cleanPath(hostPath, exclude)
  const env = { PATH: dirs.join(path.delimiter), LANG: 'C.UTF-8' }
  const binaries: Record<string, string> = { node: realpathSync(process.execPath) }
  const labels = [`node ${process.version} ${binaries.node}`]
  const python = find('python3', dirs)
  if (python !== null) {
    const executable = await firstLine(python, ['-c', 'import sys; print(sys.executable)'], env)
    if (executable !== null && path.isAbsolute(executable) && isExecutable(executable)) {
      binaries.python3 = realpathSync(executable)
      const version = (await firstLine(binaries.python3, ['--version'], env))?.replace(/^Python\s+/, '') ?? 'unknown'
      labels.push(`python3 ${version} ${binaries.python3}`)
    }
  }
  const bash = find('bash', dirs) ?? '/bin/bash'
  binaries.bash = realpathSync(bash)
  const bashVersion = (await firstLine(binaries.bash, ['--version'], env))?.match(/version (\S+)/)?.[1] ?? 'unknown'
  labels.push(`bash ${bashVersion} ${binaries.bash}`)
  const first = [...new Set(Object.values(binaries).map((file) => path.dirname(file)))]
  return { path: [...first, ...dirs.filter((dir) => !first.includes(dir))].join(path.delimiter), binaries, label: labels.join('; ') }
}

const cache = new Map<string, Promise<OracleToolchain>>()

/** `resolveOracleToolchain` once per process for the same PATH and exclusions. */
export function oracleToolchain(hostPath: string | undefined, exclude: readonly string[]): Promise<OracleToolchain> {
  const key = `${hostPath ?? ''}\u0000${exclude.join('\u0000')}`
  let toolchain = cache.get(key)
  if (toolchain === undefined) cache.set(key, (toolchain = resolveOracleToolchain(hostPath, exclude)))
  return toolchain
}
