import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { hostileProject } from '../sandbox/hostile-agent.ts'

// The agent owns its workspace's .git/config. The harness reads the agent's changes from the overlay's upper
// layer and diffs them in folders of its own, so nothing written there runs in, or lies to, the harness.

describe("the agent's changes, read by the harness", () => {
  const marker = () => path.join(process.env.TMPDIR ?? '/tmp', `fsmonitor-ran-${process.pid}`)

  test('an fsmonitor hook in .git/config never runs in the harness', async () => {
    const project = await hostileProject(`git config core.fsmonitor "touch ${marker()}"\necho right > value.txt`)
    const { record } = await project.run()
    await expect(stat(marker())).rejects.toThrow()
    expect(record.changedFiles).toEqual(['value.txt'])
    expect(record.solved).toBe(true)
  })

  test('a clean filter does not hide an edit from changedFiles or diff.patch', async () => {
    const project = await hostileProject(`
git config filter.hide.clean "sed s/right/wrong/"
git config filter.hide.smudge cat
echo '* filter=hide' > .git/info/attributes
echo right > value.txt`)
    const { record, artifacts } = await project.run()
    expect(record.changedFiles).toEqual(['value.txt'])
    const patch = await readFile(path.join(artifacts, 'diff.patch'), 'utf8')
    expect(patch).toContain('-wrong')
    expect(patch).toContain('+right')
  })

  test('diff.external cannot forge diff.patch', async () => {
    const project = await hostileProject(`
printf '#!/bin/sh\\necho forged-diff\\n' > "$HOME/fake-diff"; chmod +x "$HOME/fake-diff"
git config diff.external "$HOME/fake-diff"
echo right > value.txt`)
    const { artifacts } = await project.run()
    const patch = await readFile(path.join(artifacts, 'diff.patch'), 'utf8')
    expect(patch).not.toContain('forged-diff')
    expect(patch).toMatch(/^diff --git a\/value.txt b\/value.txt$/m)
    expect(patch).toContain('+right')
  })
})
