import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// The reporter CI adds (.ci/run), on a real child Vitest run of a small test file with one skip of each kind.

const repoRoot = path.resolve(import.meta.dirname, '../..')
const VITEST = path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs')
const REPORTER = path.join(import.meta.dirname, 'skipped-tests-reporter.ts')
const SKIPS = `import { test } from 'vitest'
test('runs', () => {})
test('is skipped with a note', (ctx) => ctx.skip('no frobnicator on this machine'))
test.skipIf(true)('says why in its title — SKIPPED: needs Node >= 99')
test.skip('gives no reason at all')
`
let dir: string
beforeAll(async () => {
  await mkdir(path.join(repoRoot, 'test', '.tmp'), { recursive: true })
  dir = await mkdtemp(path.join(repoRoot, 'test', '.tmp', 'skips-'))
  await writeFile(path.join(dir, 'vitest.config.mjs'), 'export default {}\n')
})
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

async function vitestOn(body: string, env: Record<string, string> = {}) {
  await writeFile(path.join(dir, 'skips.test.ts'), body)
  return execa(process.execPath, [VITEST, 'run', '--root', dir, '--reporter=default', `--reporter=${REPORTER}`], {
    cwd: dir,
    reject: false,
    all: true,
    env: { NO_COLOR: '1', CI: '', ...env },
  })
}

describe('the skipped-tests reporter', () => {
  test('lists every skipped test with its reason (the note, or the title after "SKIPPED:"), and fails the run for one without a reason', async () => {
    const run = await vitestOn(SKIPS)
    expect(run.all).toContain('== skipped tests: 3')
    expect(run.all).toMatch(/skips\.test\.ts > is skipped with a note\n\s+reason: no frobnicator on this machine/)
    expect(run.all).toMatch(/reason: needs Node >= 99/)
    expect(run.all).toContain('skipped-tests: skipped without a reason (say why in the title, or ctx.skip(why)): skips.test.ts > gives no reason at all')
    expect(run.exitCode).toBe(1)
  })

  test('with an allowlist (TASK_OUTCOME_ALLOWED_SKIPS), fails the run for a reason not on it, and passes one whose every skip is', async () => {
    const allowlist = path.join(dir, 'allowed-skips')
    await writeFile(allowlist, '# what this machine may skip\n^needs Node >= 99$\n')
    const reasoned = SKIPS.replace("test.skip('gives no reason at all')\n", '')
    const refused = await vitestOn(reasoned, { TASK_OUTCOME_ALLOWED_SKIPS: allowlist })
    expect(refused.all).toContain('skipped-tests: skipped for a reason CI should not have (no frobnicator on this machine): skips.test.ts > is skipped with a note')
    expect(refused.all).not.toContain('reason CI should not have (needs Node >= 99)')
    expect(refused.exitCode).toBe(1)
    const allowed = await vitestOn(reasoned.replace("(ctx) => ctx.skip('no frobnicator on this machine')", '() => {}'), { TASK_OUTCOME_ALLOWED_SKIPS: allowlist })
    expect(allowed.all).toContain('== skipped tests: 1')
    expect(allowed.exitCode, allowed.all).toBe(0)
  })
})
