import os from 'node:os'
import { isolatedSandbox, runProcess, UNSANDBOXED_HOST } from '../../sandbox/index.ts'
import { FLAG, type Finding } from './flags.ts'
import { PYTHON_ANALYSIS_SOURCE } from './python-source.ts'

/** Where and with what the Python analysis runs: the oracle's interpreter, in the oracle's sandbox. */
export interface PythonAnalysisOptions {
  /** The oracle's `python3` (an absolute path the harness resolved). */
  readonly python: string
  /** The folders it needs, bound read-only (the toolchain's mounts); nothing of the workspace is visible. */
  readonly mounts: readonly string[]
  /** The oracle's PATH. */
  readonly path: string
  /** False on an UNSANDBOXED experiment: on the host, as its oracle runs. */
  readonly sandboxed: boolean
  readonly timeoutMs: number
  readonly signal?: AbortSignal
}

/** One Python file to analyse: its path (for the record) and its bytes, read by the harness without following links. */
export interface PythonFile {
  readonly path: string
  readonly bytes: Buffer
}

/**
 * The findings of each Python file, by path. The files go to the analysis on
 * stdin (the sandbox sees none of the workspace); it answers file by file, so
 * when a file makes the interpreter die or hang, that file is `not analysed`
 * and the ones after it are analysed again by a fresh process.
 */
export async function analysePython(files: readonly PythonFile[], options: PythonAnalysisOptions): Promise<Map<string, Finding[]>> {
  const results = new Map<string, Finding[]>()
  let pending = [...files]
  while (pending.length > 0) {
    // Aborted before a process started: it would race the kill, so none starts.
    if (options.signal?.aborted) {
      results.set(pending[0]!.path, [{ name: FLAG.notAnalysed, line: null }])
      break
    }
    const answered = await runAnalysis(pending, options)
    for (const [file, findings] of answered) results.set(file, findings)
    const missing = pending.filter((file) => !answered.has(file.path))
    if (missing.length === 0) break
    // The first file without an answer is the one the process died on (or hung on).
    results.set(missing[0]!.path, [{ name: FLAG.notAnalysed, line: null }])
    pending = missing.slice(1)
    if (options.signal?.aborted) break
  }
  return results
}

async function runAnalysis(files: readonly PythonFile[], options: PythonAnalysisOptions): Promise<Map<string, Finding[]>> {
  const answered = new Map<string, Finding[]>()
  const input = JSON.stringify(files.map((file) => ({ path: file.path, source: file.bytes.toString('base64') })))
  const result = await runProcess(
    { file: options.python, args: ['-I', '-S', '-c', PYTHON_ANALYSIS_SOURCE] },
    {
      cwd: options.sandboxed ? '/' : os.tmpdir(),
      env: { PATH: options.path, LANG: 'C.UTF-8' },
      input,
      timeoutMs: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      sandbox: options.sandboxed ? isolatedSandbox({ writable: [], readOnly: options.mounts }) : UNSANDBOXED_HOST,
    },
  )
  const expected = new Set(files.map((file) => file.path))
  for (const line of result.stdout.split('\n')) {
    const answer = parseAnswer(line)
    if (answer !== null && expected.has(answer.path)) answered.set(answer.path, answer.findings)
  }
  return answered
}

/**
 * One line of the analysis's stdout read as its answer for one file, or null when the line is not one: what a
 * file's source cannot forge is kept out (a flag the harness does not know is dropped, a line that is not a whole
 * number is null). Exported for its tests.
 */
export function parseAnswer(line: string): { path: string; findings: Finding[] } | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch {
    return null
  }
  const { path, findings } = (parsed ?? {}) as { path?: unknown; findings?: unknown }
  if (typeof path !== 'string' || !Array.isArray(findings)) return null
  const known = new Set<string>(Object.values(FLAG))
  return {
    path,
    findings: findings.flatMap((finding): Finding[] => {
      if (!Array.isArray(finding) || typeof finding[0] !== 'string' || !known.has(finding[0])) return []
      return [{ name: finding[0], line: typeof finding[1] === 'number' && Number.isInteger(finding[1]) ? finding[1] : null }]
    }),
  }
}
