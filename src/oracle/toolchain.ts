import { existsSync, realpathSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runProcess, SYSTEM_READ_ONLY, UNSANDBOXED_HOST } from '../sandbox/index.ts'

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
  /**
   * The folders the tools need, mounted read-only in every sandbox that runs them: each binary's folder, and
   * Python's prefixes (`sys.prefix`, `sys.base_prefix` and their exec twins: a virtualenv's site-packages and
   * `pyvenv.cfg`, the standard library of a pyenv, uv or conda installation that `python3` links into).
   */
  readonly mounts: readonly string[]
  /**
   * `versions.toolchain`: `node v24.1.0 /usr/bin/node; python3 3.11.2 /usr/bin/python3.11; bash 5.2.15 /usr/bin/bash`;
   * a virtualenv's interpreter as `python3 3.11.7 /work/venv/bin/python3 (virtualenv of /usr)`.
   */
  readonly label: string
}

/** What an interpreter says of itself: where it is and its prefixes. */
const PYTHON_PROBE = 'import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]))'

/** The interpreter the oracle runs and what it needs mounted, or null when `python` does not answer. */
async function resolvePython(python: string, env: Record<string, string>): Promise<{ binary: string; mounts: string[]; label: string } | null> {
  let probe: unknown
  try {
    probe = JSON.parse((await firstLine(python, ['-c', PYTHON_PROBE], env)) ?? 'null')
  } catch {
    return null
  }
  if (!Array.isArray(probe) || probe.length !== 5 || !probe.every((value) => typeof value === 'string' && path.isAbsolute(value))) return null
  const [executable, prefix, execPrefix, basePrefix, baseExecPrefix] = probe as string[]
  if (!isExecutable(executable!)) return null
  // A virtualenv is found from the path it is run by (its pyvenv.cfg beside bin/): never resolve its link to the base.
  const virtualenv = prefix !== basePrefix
  const binary = virtualenv ? executable! : realpathSync(executable!)
  // A prefix the sandbox already mounts (Debian's /usr) is not bound again over it.
  const system = (dir: string) => SYSTEM_READ_ONLY.some((root) => dir === root || dir.startsWith(root + path.sep))
  const prefixes = [...new Set([prefix!, execPrefix!, basePrefix!, baseExecPrefix!])].filter((dir) => existsSync(dir) && !system(realpathSync(dir)))
  const mounts = [...new Set([path.dirname(binary), path.dirname(realpathSync(binary)), ...prefixes, ...prefixes.map((dir) => realpathSync(dir))])]
  const version = (await firstLine(binary, ['--version'], env))?.replace(/^Python\s+/, '') ?? 'unknown'
  return { binary, mounts, label: `python3 ${version} ${binary}${virtualenv ? ` (virtualenv of ${basePrefix})` : ''}` }
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
export function trustedPathDirs(hostPath: string | undefined, exclude: readonly string[]): string[] {
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
  const dirs = trustedPathDirs(hostPath, exclude)
  const env = { PATH: dirs.join(path.delimiter), LANG: 'C.UTF-8' }
  const node = realpathSync(process.execPath)
  const binaries: Record<string, string> = { node }
  const labels = [`node ${process.version} ${node}`]
  const mounts: string[] = [path.dirname(node)]
  const python = find('python3', dirs)
  const resolved = python === null ? null : await resolvePython(python, env)
  if (resolved !== null) {
    binaries.python3 = resolved.binary
    mounts.push(...resolved.mounts)
    labels.push(resolved.label)
  }
  const bash = find('bash', dirs) ?? '/bin/bash'
  binaries.bash = realpathSync(bash)
  const bashVersion = (await firstLine(binaries.bash, ['--version'], env))?.match(/version (\S+)/)?.[1] ?? 'unknown'
  labels.push(`bash ${bashVersion} ${binaries.bash}`)
  mounts.push(path.dirname(binaries.bash!))
  const first = [...new Set(Object.values(binaries).map((file) => path.dirname(file)))]
  return {
    path: [...first, ...dirs.filter((dir) => !first.includes(dir))].join(path.delimiter),
    binaries,
    mounts: [...new Set(mounts)],
    label: labels.join('; '),
  }
}

const cache = new Map<string, Promise<OracleToolchain>>()

/** `resolveOracleToolchain` once per process for the same PATH and exclusions. */
export function oracleToolchain(hostPath: string | undefined, exclude: readonly string[]): Promise<OracleToolchain> {
  const key = `${hostPath ?? ''}\u0000${exclude.join('\u0000')}`
  let toolchain = cache.get(key)
  if (toolchain === undefined) cache.set(key, (toolchain = resolveOracleToolchain(hostPath, exclude)))
  return toolchain
}
