import { execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import type { OracleOptions } from '../../src/oracle/judgement.ts'
import type { OracleToolchain } from '../../src/oracle/toolchain.ts'
import { runVerifyScript, VERIFY_REWRITTEN, VERIFY_TIMEOUT_EXIT } from '../../src/oracle/verify.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { folderTask as laidTask } from '../helpers/folder-task.ts'

// A folder task's verify.sh run by the oracle on task folders and workspaces laid out by hand: on the host, and
// in a sandbox on a tmpfs of the run's disk limit (the end-to-end cases are in hostile-verify.test.ts).

/** Files of a folder (relative path → content) written under `dir`. */
async function lay(dir: string, files: Record<string, string>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await writeFile(path.join(dir, file), content)
  }
}

/** A folder task with `starting/` holding `starting`, `verify` as its verify.sh, no reference solution. */
const folderTask = (starting: Record<string, string>, verify: string, protect: string[] = []) => laidTask('task-outcome-verify-task-', starting, { verify, protect })

/** A workspace (only its folder: the oracle reads nothing else of it) holding `files`. */
async function workspace(files: Record<string, string>): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-verify-workspace-'))
  await lay(dir, files)
  return { dir, agentDir: dir, overlay: undefined } as unknown as Workspace
}

async function options(more: Partial<OracleOptions> = {}): Promise<OracleOptions> {
  return { timeoutMs: 30_000, scratchDir: await mkdtemp(path.join(os.tmpdir(), 'task-outcome-verify-scratch-')), ...more }
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  )

const NOTE = '[task-outcome oracle] verify.sh ran on a copy with the protected paths'

describe('runVerifyScript on the host', () => {
  test.each([
    [0, true],
    [3, false],
  ])('exit %i: solved %s, the exit status and output kept', async (exit, solved) => {
    const task = await folderTask({ 'app.sh': 'echo 1\n' }, `echo out; echo err >&2; exit ${exit}`)
    const judgement = await runVerifyScript(task, await workspace({ 'app.sh': 'echo 2\n' }), await options())
    expect(judgement).toMatchObject({ solved, oracle: { verifyExit: exit }, stdout: 'out' })
    expect(judgement.stderr).toMatch(/\nerr$/)
    expect(judgement.integrityFlags).toBeUndefined()
  })

  test("runs on a copy of the workspace: it sees the agent's files, and what it writes never reaches the workspace", async () => {
    const task = await folderTask({ 'app.sh': 'echo 1\n' }, 'cat app.sh; echo written > app.sh; pwd')
    const ws = await workspace({ 'app.sh': 'echo agent\n' })
    const judgement = await runVerifyScript(task, ws, await options())
    const [content, cwd] = judgement.stdout.split('\n')
    expect(content).toBe('echo agent')
    expect(cwd).not.toBe(ws.dir)
    expect(await readFile(path.join(ws.dir, 'app.sh'), 'utf8')).toBe('echo agent\n')
  })

  test("the task's protected paths as starting/ has them, and the note says which differed", async () => {
    const starting = { 'data.csv': 'real\n', 'more.csv': 'more\n', 'keep.csv': 'same\n', 'app.sh': 'echo 1\n' }
    const task = await folderTask(starting, 'cat data.csv more.csv', ['data.csv', 'more.csv', 'keep.csv'])
    const judgement = await runVerifyScript(task, await workspace({ 'data.csv': 'forged\n', 'more.csv': 'forged\n', 'keep.csv': 'same\n', 'app.sh': 'echo 2\n' }), await options())
    expect(judgement.stdout).toBe('real\nmore')
    expect(judgement.stderr).toBe(`${NOTE} (data.csv, more.csv, keep.csv) restored from starting/: data.csv, more.csv\n`)
  })

  test('by default, the non-code files the solution leaves unchanged; none differed, and the note says so', async () => {
    const task = await folderTask({ 'data.csv': 'real\n', 'app.sh': 'echo 1\n' }, 'true')
    const judgement = await runVerifyScript(task, await workspace({ 'data.csv': 'real\n', 'app.sh': 'echo 2\n' }), await options())
    expect(judgement.stderr).toBe(`${NOTE} (by default: the non-code files the reference solution leaves unchanged) restored from starting/: none differed\n`)
  })

  test('interpreter and package-manager configuration the agent planted is put back as starting/ has it, and named', async () => {
    const task = await folderTask({ 'app.sh': 'echo 1\n' }, 'test -e node_modules/x/index.js && echo PLANTED; true')
    const planted = { 'node_modules/x/index.js': 'module.exports = 1\n', 'node_modules/y/index.js': 'module.exports = 2\n' }
    const judgement = await runVerifyScript(task, await workspace({ 'app.sh': 'echo 2\n', ...planted }), await options())
    expect(judgement.stdout).toBe('')
    expect(judgement.stderr).toMatch(
      /^\[task-outcome oracle\] interpreter or package-manager configuration as starting\/ has it: node_modules\/x\/index\.js, node_modules\/y\/index\.js\n\[task-outcome oracle\] verify\.sh ran/,
    )
  })

  test('a FIFO of the workspace is not carried into the copy, and the note names it', async () => {
    const task = await folderTask({ 'app.sh': 'echo 1\n' }, 'test -e pipe && echo CARRIED; true')
    const ws = await workspace({ 'app.sh': 'echo 2\n' })
    execFileSync('/bin/sh', ['-c', 'mkfifo "$0" "$1"', path.join(ws.dir, 'pipe'), path.join(ws.dir, 'pipe2')])
    const judgement = await runVerifyScript(task, ws, await options())
    expect(judgement.stdout).toBe('')
    expect(judgement.stderr).toMatch(/^\[task-outcome oracle\] not carried into the copy \(a FIFO, socket or device\): pipe, pipe2\n\[task-outcome oracle\] verify\.sh ran/)
  })

  test("gets the toolchain's PATH and bash, the scratch folder as HOME, a UTF-8 locale and empty read-only npm configuration", async () => {
    const bin = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-verify-bin-'))
    await writeFile(path.join(bin, 'bash'), `#!/bin/sh\necho "the oracle's bash" >&2\nexec /bin/bash "$@"\n`, { mode: 0o755 })
    const toolchain = { path: `${bin}:/usr/bin:/bin`, binaries: { bash: path.join(bin, 'bash') }, mounts: [], label: '' } satisfies OracleToolchain
    const task = await folderTask(
      {},
      `echo "$PATH|$HOME|$LANG"; for f in "$NPM_CONFIG_USERCONFIG" "$NPM_CONFIG_GLOBALCONFIG"; do echo "$(basename "$f") $(stat -c '%s %a' "$f")"; done`,
    )
    const given = await options({ toolchain })
    const judgement = await runVerifyScript(task, await workspace({}), given)
    expect(judgement.stdout).toBe(`${bin}:/usr/bin:/bin|${given.scratchDir}|C.UTF-8\nuser.npmrc 0 444\nglobal.npmrc 0 444`)
    expect(judgement.stderr).toMatch(/\nthe oracle's bash$/)
  })

  test("leaves nothing behind: the copy's folder in the scratch folder and the script's private folder are removed", async () => {
    const task = await folderTask({}, 'dirname "$0"')
    const given = await options()
    const judgement = await runVerifyScript(task, await workspace({ 'app.sh': 'echo 2\n' }), given)
    expect(await exists(judgement.stdout)).toBe(false)
    expect(path.basename(judgement.stdout)).toMatch(/^task-outcome-verify-/)
    expect(await readdir(given.scratchDir)).toEqual([])
  })

  test("without a toolchain, the host's PATH", async () => {
    const task = await folderTask({}, 'echo "$PATH"')
    expect((await runVerifyScript(task, await workspace({}), await options())).stdout).toBe(process.env.PATH)
  })

  test(`a verify.sh past the timeout exits ${VERIFY_TIMEOUT_EXIT}, unsolved; one the abort signal stops, unsolved too`, async () => {
    const task = await folderTask({}, 'sleep 30')
    const timedOut = await runVerifyScript(task, await workspace({}), await options({ timeoutMs: 300 }))
    expect(timedOut).toMatchObject({ solved: false, oracle: { verifyExit: VERIFY_TIMEOUT_EXIT } })
    const started = performance.now()
    const aborted = await runVerifyScript(task, await workspace({}), await options({ signal: AbortSignal.timeout(300) }))
    expect(performance.now() - started).toBeLessThan(15_000)
    expect(aborted.solved).toBe(false)
    expect(aborted.oracle).not.toEqual({ verifyExit: VERIFY_TIMEOUT_EXIT })
  })

  test.each([
    ['appended to', 'echo "# more" >> "$0"'],
    ['touched', 'touch "$0"'],
    ['written with the same bytes', 'cat "$0" > "$0.new"; cat "$0.new" > "$0"'],
    ['given other permissions (its change time alone moved)', 'chmod 600 "$0"'],
  ])('a verify.sh %s while it ran is unsolved, flagged, and said so; the task file stays as it was', async (_how, write) => {
    const task = await folderTask({}, `sleep 0.01; ${write}; exit 0`)
    const before = await readFile(task.verifyScript, 'utf8')
    const judgement = await runVerifyScript(task, await workspace({}), await options())
    expect(judgement).toMatchObject({ solved: false, oracle: { verifyExit: 0 }, integrityFlags: [VERIFY_REWRITTEN] })
    expect(judgement.stderr).toMatch(
      /^\[task-outcome oracle\] verify\.sh was written while it ran \(its change time, size or content moved\): counted as unsolved\n\[task-outcome oracle\] verify\.sh ran/,
    )
    expect(await readFile(task.verifyScript, 'utf8')).toBe(before)
  })
})

describe('runVerifyScript in a sandbox', () => {
  test('runs at the copy on its tmpfs with the task file read-only at its path, HOME writable, nothing else of the task seen', async () => {
    const task = await folderTask({ 'app.sh': 'echo 1\n' }, '')
    await writeFile(
      task.verifyScript,
      [
        'cat app.sh',
        `test "$(pwd)" != "${task.dir}" && echo ELSEWHERE`,
        `echo x >> "${task.verifyScript}" 2>/dev/null || echo SCRIPT-READ-ONLY`,
        `test -e "${task.startingDir}" || echo STARTING-HIDDEN`,
        'touch "$HOME/h" && echo HOME-WRITABLE',
        'touch here && echo COPY-WRITABLE',
        'echo more >> app.sh && echo AGENT-FILE-WRITABLE',
        'echo "HOME=$HOME"',
        'touch "$(dirname "$HOME")/x" 2>/dev/null',
        'test -f "$NPM_CONFIG_USERCONFIG" && test -f "$NPM_CONFIG_GLOBALCONFIG" && echo NPMRC',
        'cat "$SHARED/data.txt"',
      ].join('\n'),
    )
    const shared = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-verify-shared-'))
    await writeFile(path.join(shared, 'data.txt'), 'SHARED\n')
    // Readable by the sandbox's own user.
    await chmod(shared, 0o755)
    await writeFile(task.verifyScript, `SHARED=${shared}\n${await readFile(task.verifyScript, 'utf8')}`)
    const given = await options({ sandbox: { readOnly: [shared], diskMb: 16 } })
    const judgement = await runVerifyScript(task, await workspace({ 'app.sh': 'echo agent\n' }), given)
    expect(judgement.stdout.split('\n')).toEqual([
      'echo agent',
      'ELSEWHERE',
      'SCRIPT-READ-ONLY',
      'STARTING-HIDDEN',
      'HOME-WRITABLE',
      'COPY-WRITABLE',
      'AGENT-FILE-WRITABLE',
      `HOME=${path.join(given.scratchDir, 'verify-home')}`,
      'NPMRC',
      'SHARED',
    ])
    // The scratch folder itself is not the sandbox's to write: HOME is bound below it, on the tmpfs.
    expect(await exists(path.join(given.scratchDir, 'x'))).toBe(false)
    expect((await readdir(given.scratchDir)).filter((name) => /^verify-.{6}$/.test(name))).toEqual([])
    expect(judgement).toMatchObject({ solved: true, oracle: { verifyExit: 0 } })
    expect(judgement.limit).toBeUndefined()
  })

  test("a verify.sh that writes the run's disk limit full is unsolved at limit 'disk', and said so", async () => {
    const task = await folderTask({}, 'head -c 12000000 /dev/zero > big 2>/dev/null; exit 0')
    const judgement = await runVerifyScript(task, await workspace({}), await options({ sandbox: { readOnly: [], diskMb: 8 } }))
    expect(judgement).toMatchObject({ solved: false, limit: 'disk', oracle: { verifyExit: 0 } })
    expect(judgement.stderr).toMatch(
      /^\[task-outcome oracle\] verify\.sh wrote the oracle's disk limit full \(the copy and HOME\): counted as unsolved at limit 'disk'\n\[task-outcome oracle\]/,
    )
  })

  test('runs /bin/bash, never the bash of the toolchain it was given', async () => {
    const bin = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-verify-bin-'))
    await writeFile(path.join(bin, 'bash'), `#!/bin/sh\necho "the toolchain's bash"\nexec /bin/bash "$@"\n`, { mode: 0o755 })
    const toolchain = { path: `${bin}:/usr/bin:/bin`, binaries: { bash: path.join(bin, 'bash') }, mounts: [], label: '' } satisfies OracleToolchain
    const task = await folderTask({}, 'echo ran')
    const judgement = await runVerifyScript(task, await workspace({}), await options({ toolchain, sandbox: { readOnly: [bin], diskMb: 16 } }))
    expect(judgement.stdout).toBe('ran')
  })
})
