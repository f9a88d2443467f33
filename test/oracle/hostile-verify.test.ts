import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { HarnessFailure } from '../../src/errors.ts'
import { hostileProject } from '../sandbox/hostile-agent.ts'

// A folder task's oracle through the real path (executeRun: overlay workspace, sandbox, hostile `command` agent as
// root, verify.sh, record): the code under test rewriting verify.sh while it runs, links from the workspace and
// HOME to host files with protected paths to restore, a FIFO, and a tree the harness cannot copy.

let host: string
beforeAll(async () => {
  host = await mkdtemp(path.join(os.tmpdir(), 'host-files-'))
})
afterAll(async () => {
  await rm(host, { recursive: true, force: true })
})

/** Every host file's content, mode and times. */
async function hostState(dir: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {}
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    const info = await lstat(path.join(dir, name))
    state[name] = `${info.mode.toString(8)} ${info.mtimeMs} ${info.ctimeMs} ${info.isFile() ? await readFile(path.join(dir, name), 'utf8') : ''}`
  }
  return state
}

// check.sh is the code under test: verify.sh runs it first. It finds the script bash is reading (its parent's
// argument), makes the read-only bind writable if it can, and rewrites the rest of the script to `exit 0`.
const REWRITING_CHECK = `
script=$(tr '\\0' '\\n' < /proc/$PPID/cmdline | sed -n 2p)
mount -o remount,bind,rw "$script" 2>/dev/null
if { printf '#!/usr/bin/env bash\\nbash ./check.sh\\nexit 0 #################\\n' > "$script"; } 2>/dev/null; then echo 'REWRITE succeeded' >&2; else echo 'REWRITE failed' >&2; fi
`

test('a verify.sh rewritten by the code under test while it runs leaves the run unsolved, and the task file as it was', async () => {
  const verify = 'bash ./check.sh\ngrep -qx right value.txt'
  const project = await hostileProject(`cat > check.sh <<'EOF'\n${REWRITING_CHECK}\nEOF`, {
    task: { starting: { 'value.txt': 'wrong\n', 'check.sh': 'true\n' }, verify },
  })
  const taskScript = path.join(project.root, 'tasks', 'fixture', '001-value', 'verify.sh')
  const { record, artifacts } = await project.run()
  const stderr = await readFile(path.join(artifacts, 'oracle.stderr.txt'), 'utf8')
  expect(record.outcome).toBe('unsolved')
  expect(await readFile(taskScript, 'utf8')).toBe(`#!/usr/bin/env bash\n${verify}\n`)
  // With every capability dropped the remount fails; where it succeeds, the rewrite hit the private copy and was caught.
  if (stderr.includes('REWRITE succeeded')) expect(record.integrityFlags).toContain('verify-script-rewritten')
  else expect(stderr).toContain('REWRITE failed')
})

test('links from the workspace and HOME to host files, with protected paths to restore and a FIFO: every host file stays as it was and the run is recorded', async () => {
  await writeFile(path.join(host, 'victim'), 'HOST victim\n', { mode: 0o600 })
  await writeFile(path.join(host, 'secret'), 'HOST secret\n', { mode: 0o600 })
  await writeFile(path.join(host, 'value.txt'), 'right\n', { mode: 0o600 })
  const before = await hostState(host)
  const project = await hostileProject(
    [
      `rm -rf data && ln -s ${host} data`,
      `ln -s ${host}/secret leak.txt`,
      `rm value.txt && ln -s ${host}/value.txt value.txt`,
      `ln -s ${host} "$HOME/host" && ln -s ${host}/victim "$HOME/victim"`,
      'mkfifo fifo',
    ].join('\n'),
    { task: { starting: { 'value.txt': 'wrong\n', 'data/victim': 'task data\n', 'data/other': 'more\n' }, metadata: { protect: ['data/*', 'value.txt'] } } },
  )
  const { record, artifacts } = await project.run()
  expect(record.outcome).toBe('unsolved')
  expect(record.harnessError).toBeNull()
  expect(record.changedFiles).toEqual(['data', 'fifo', 'leak.txt', 'value.txt'])
  const stderr = await readFile(path.join(artifacts, 'oracle.stderr.txt'), 'utf8')
  expect(stderr).toContain('not carried into the copy (a FIFO, socket or device): fifo')
  expect(stderr).toMatch(/restored from starting\/: data\/other, data\/victim, value\.txt/)
  expect(await hostState(host)).toEqual(before)
  expect(await readdir(host)).toEqual(['secret', 'value.txt', 'victim'])
})

test('a tree the harness cannot copy for the oracle (deeper than PATH_MAX) is judged on the clean parent and recorded unsolved, with the failure in the record', async () => {
  const project = await hostileProject(`d=$(printf 'x%.0s' $(seq 1 250)); ( for i in $(seq 1 20); do mkdir "$d" && cd "$d"; done; echo deep > f )`, {
    task: { starting: { 'value.txt': 'wrong\n', 'data/input': 'task data\n' }, metadata: { protect: ['data/**'] } },
  })
  const { record, artifacts } = await project.run()
  expect(record.outcome).toBe('unsolved')
  expect(record.harnessRetries).toEqual([])
  expect(record.harnessError?.message).toMatch(/ENAMETOOLONG/)
  expect(await readFile(path.join(artifacts, 'oracle.stderr.txt'), 'utf8')).toContain('on the clean parent the oracle judges')
})

test('a task file written by the code under test while the oracle runs (no sandbox) stops the experiment as tampered, the measured run kept in unrecorded/', async () => {
  const project = await hostileProject(({ root }) => `cat > check.sh <<'EOF'\necho 'one more line' >> ${root}/tasks/fixture/001-value/task.md\nEOF`, {
    sandbox: 'none',
    task: { starting: { 'value.txt': 'wrong\n', 'check.sh': 'true\n' }, verify: 'bash ./check.sh\ngrep -qx right value.txt' },
  })
  const failure = await project.run().then(
    () => undefined,
    (error: unknown) => error as HarnessFailure,
  )
  expect(failure).toBeInstanceOf(HarnessFailure)
  expect(failure?.reason).toBe('tampered')
  expect(failure?.message).toMatch(/after the oracle, task file .*task\.md/)
  const kept = await readdir(path.join(project.experiment.outDir, 'unrecorded'))
  expect(kept).toHaveLength(1)
  expect(JSON.parse(await readFile(path.join(project.experiment.outDir, 'unrecorded', kept[0]!), 'utf8'))).toMatchObject({
    task: '001-value',
    arm: 'a',
    seed: 1,
    outcome: 'unsolved',
  })
  expect(await readFile(path.join(project.experiment.outDir, 'runs.jsonl'), 'utf8').catch(() => '')).toBe('')
})
