import { chmod, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

describe('versions.sandbox', () => {
  test('is on every record, and a resume under another bubblewrap version refuses to mix them', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1))
    const first = await fixture.vitest(['-t', 'gold › seed 1'])
    expect(first.exitCode, first.all).toBe(0)
    const [record] = await fixture.runs()
    expect(record!.versions).toMatchObject({ sandbox: expect.stringMatching(/^bubblewrap \d+\.\d+/) })

    // The same machine after a bubblewrap upgrade: a bwrap that reports another version (and otherwise is the real one).
    const shims = await mkdtemp(path.join(os.tmpdir(), 'bwrap-upgrade-'))
    await writeFile(path.join(shims, 'bwrap'), '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 9.9.9"; exit 0; }\nexec /usr/bin/bwrap "$@"\n')
    await chmod(path.join(shims, 'bwrap'), 0o755)
    const again = await fixture.vitest([], { env: { PATH: `${shims}:${process.env.PATH}` } })
    expect(again.exitCode).not.toBe(0)
    expect(again.all).toMatch(/other versions \(sandbox bubblewrap \d+\.\d+\.\d+ → bubblewrap 9\.9\.9\)/)
    // Nothing more is recorded: the sandbox is compared across arms, so the noop arm, with no runs of its own, stops too.
    expect(await fixture.runs()).toHaveLength(1)
  })
})
