import os from 'node:os'
import { testCommandEnv } from '../oracle/test-command.ts'
import { runProcess, UNSANDBOXED_HOST } from '../sandbox/index.ts'
import type { OracleToolchain } from '../oracle/toolchain.ts'
import type { Task } from '../tasks/task.ts'
import { preparedRunner, type PreparedDependencies } from '../workspace/dependencies.ts'

/**
 * `versions.testRunner`: the test runner the oracle judges a task with.
 * From the task's prepared dependency folder when its test command runs a
 * program of it (`vitest 4.1.12`); otherwise pytest's own `--version` through
 * the oracle's resolved toolchain, or `node:test` with the harness's Node.
 * Never read from the workspace (the agent could write there). Null when the
 * command runs something else (a folder task's `verify.sh`).
 */
export async function testRunnerVersion(task: Task, dependencies: PreparedDependencies | null, toolchain: OracleToolchain): Promise<string | null> {
  if (task.kind !== 'git-fix') return null
  const command = task.metadata.test_command
  if (dependencies !== null) {
    const runner = await preparedRunner(dependencies, command)
    if (runner !== null) return runner
  }
  const words = command.trim().split(/\s+/)
  if (words[0] === 'node' && words.includes('--test')) return `node:test ${process.version}`
  const pytest = words[1] === '-m' && words[2] === 'pytest' && /^(\S*\/)?python[0-9.]*$/.test(words[0] ?? '')
  if (pytest) return pytestVersion(words[0]!, toolchain)
  return null
}

const probed = new Map<string, Promise<string | null>>()

function pytestVersion(python: string, toolchain: OracleToolchain): Promise<string | null> {
  const key = `${python}\0${toolchain.path}`
  let version = probed.get(key)
  if (version === undefined) {
    version = runProcess(
      { file: python, args: ['-m', 'pytest', '--version'] },
      // The oracle's own environment (pyenv's shims need PYENV_ROOT), with its resolved PATH.
      { cwd: os.tmpdir(), env: { ...testCommandEnv(os.tmpdir()), PATH: toolchain.path }, timeoutMs: 30_000, sandbox: UNSANDBOXED_HOST },
    ).then(
      (result) => {
        const match = /pytest (\S+)/.exec(`${result.stdout}\n${result.stderr}`)
        return result.exitCode === 0 && match !== null ? `pytest ${match[1]}` : null
      },
      () => null,
    )
    probed.set(key, version)
  }
  return version
}
