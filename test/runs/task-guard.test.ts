import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { RACY_MARGIN_MS } from '../../src/workspace/stat-seal.ts'
import { folderTemplate } from '../../src/workspace/template.ts'
import { createExperimentFixture, simpleTasks, writeFolderTasks } from '../helpers/experiment-fixture.ts'

// Hostile `command` agents that change the task folder during their run, with
// `sandbox: 'none'` so the folder is within their reach (in a sandbox it is
// not), a template changed between runs, and a sealed template written during the run.

async function hostileFixture(script: string, tasks = simpleTasks(1)) {
  const fixture = await createExperimentFixture(tasks, {
    arms: { noop: {}, hostile: { agent: { kind: 'command', bin: './hostile.sh' } } },
    control: 'noop',
    seeds: 1,
    sandbox: 'none',
  })
  const verify = path.join(fixture.setDir, '001-task-1', 'verify.sh')
  await fixture.writeAgent('hostile.sh', [`VERIFY=${verify}`, script, `echo '{"status":"completed","costUsd":0.01}'`])
  return fixture
}

describe('the task folder and the template, hashed before every run and every oracle', () => {
  let template = ''
  test('a task file changed and put back during the run stops the experiment naming it; the run is not recorded', async () => {
    const fixture = await hostileFixture(
      'cp "$VERIFY" "$HOME/verify.sh.orig"\nprintf "#!/usr/bin/env bash\\nexit 0\\n" > "$VERIFY"\nsleep 0.2\ncp "$HOME/verify.sh.orig" "$VERIFY"',
    )
    const result = await fixture.vitest(['-t', 'hostile'])
    expect(result.exitCode).not.toBe(0)
    expect(result.all).toMatch(
      /harness failure \(tampered\).*before the oracle, task file tasks\/fixture\/001-task-1\/verify\.sh was written during the run \(its change time moved\), even if its content is back/,
    )
    expect(await fixture.runs()).toEqual([])
  })

  test('a task file changed and left so stops the experiment before the oracle, naming it', async () => {
    const fixture = await hostileFixture('printf "#!/usr/bin/env bash\\nexit 0\\n" > "$VERIFY"')
    const result = await fixture.vitest(['-t', 'hostile'])
    expect(result.exitCode).not.toBe(0)
    expect(result.all).toMatch(/before the oracle, task file tasks\/fixture\/001-task-1\/verify\.sh differs from the spec manifest/)
    expect(await fixture.runs()).toEqual([])
  })

  test('a template changed between runs stops the next run before it starts, naming the file', async () => {
    // starting/ of its own (a template is shared by every task with the same starting/), removed at the end.
    const tasks = simpleTasks(1).map((task) => ({ ...task, starting: { ...task.starting, 'unique.txt': `${randomUUID()}\n` } }))
    const fixture = await createExperimentFixture(tasks, { seeds: 2 })
    onTestFinished(() => rm(template, { recursive: true, force: true }))
    const first = await fixture.vitest(['-t', 'seed 1'])
    expect(first.exitCode, first.all).toBe(0)
    expect(await fixture.runs()).toHaveLength(2)
    template = await folderTemplate(path.join(fixture.setDir, '001-task-1', 'starting'))
    await writeFile(path.join(template, 'value.txt'), 'right\n')
    const second = await fixture.vitest(['-t', 'seed 2'])
    expect(second.exitCode).not.toBe(0)
    expect(second.all).toMatch(/harness failure \(tampered\).*before the run, its template .* no longer holds what it was made from: value\.txt changed/)
    // The experiment stops at once: the other seed-2 run is not started (it would meet the same template).
    expect(second.all).toMatch(/1 run\(s\) not started, nothing recorded for them/)
    expect(await fixture.runs()).toHaveLength(2)
  })

  /**
   * A hostile agent that writes into its (unsandboxed) run's template, of a
   * `starting/` of its own, published before the run and older than the racy
   * margin, so the run's first check seals it and only the seal's check
   * after the oracle can find the write.
   */
  async function sealedTemplateFixture(script: (file: string) => string) {
    const tasks = simpleTasks(1).map((task) => ({ ...task, starting: { ...task.starting, 'unique.txt': `${randomUUID()}\n` } }))
    // The template is keyed by the content of starting/: published from a copy of the task, before the fixture runs.
    const copy = await mkdtemp(path.join(os.tmpdir(), 'sealed-template-'))
    await writeFolderTasks(copy, tasks)
    const sealed = await folderTemplate(path.join(copy, '001-task-1', 'starting'))
    onTestFinished(async () => {
      await rm(sealed, { recursive: true, force: true })
      await rm(copy, { recursive: true, force: true })
    })
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100))
    return hostileFixture(script(path.join(sealed, 'value.txt')), tasks)
  }

  test('a sealed template rewritten during the run with its size and mtime put back stops the experiment at the look after the oracle; the run is not recorded', async () => {
    const fixture = await sealedTemplateFixture((file) => `touch -r "${file}" "$HOME/times"\nprintf 'right\\n' > "${file}"\ntouch -m -r "$HOME/times" "${file}"`)
    const result = await fixture.vitest(['-t', 'hostile'])
    expect(result.exitCode).not.toBe(0)
    expect(result.all).toMatch(/harness failure \(tampered\).*after the oracle, its template .* changed during the run: value\.txt changed/)
    expect(await fixture.runs()).toEqual([])
  })

  test('a sealed template changed and put back during the run, mtime too, stops the experiment by its change time', async () => {
    const fixture = await sealedTemplateFixture(
      (file) => `cp -p "${file}" "$HOME/orig"\nprintf 'right\\n' > "${file}"\nsleep 0.2\ncat "$HOME/orig" > "${file}"\ntouch -m -r "$HOME/orig" "${file}"`,
    )
    const result = await fixture.vitest(['-t', 'hostile'])
    expect(result.exitCode).not.toBe(0)
    expect(result.all).toMatch(
      /harness failure \(tampered\).*after the oracle, template entry value\.txt was written during the run \(its change time moved\), even if its content is back/,
    )
    expect(await fixture.runs()).toEqual([])
  })
})
