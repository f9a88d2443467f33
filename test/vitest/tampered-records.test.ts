import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks, type ExperimentFixture } from '../helpers/experiment-fixture.ts'
import { writeRecordedRuns } from '../helpers/runs-file.ts'

// A hostile `command` agent that, on one seed, tampers with the experiment's
// own records while it runs, then reports an ordinary result. The experiment
// runs with `sandbox: 'none'` so that the file is within the agent's reach (in
// a sandbox it is not: test/sandbox covers that); this is what anything outside
// the recorder that writes to the file looks like. Each test shows
// the tampering found, with the line named, and nothing recorded lost.

const TAMPERING = {
  /** Marks the first recorded run (an unsolved noop) solved, consistently: only the chain can tell. */
  rewrite: `lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), outcome: 'solved', solved: true, oracle: { verifyExit: 0 } }); save(lines)`,
  /** Removes the first recorded run. */
  delete: `lines.splice(0, 1); save(lines)`,
  /** Inserts a record of a run not yet made after line 1, linked to line 1. */
  insert: `lines.splice(1, 0, JSON.stringify({ ...noop, arm: 'hostile', seed: 2, prevSha256: sha(lines[0]) })); save(lines)`,
  /** Appends a well-linked, self-consistent record of a run not yet made: the recorder would skip that run as done. */
  forge: `lines.push(JSON.stringify({ ...noop, arm: 'hostile', seed: 2, outcome: 'solved', solved: true, oracle: { verifyExit: 0 }, prevSha256: sha(lines.at(-1)) })); save(lines)`,
  /** Appends the first record again, linked, and moves the anchor as the recorder would. */
  duplicate: `lines.push(JSON.stringify({ ...JSON.parse(lines[0]), prevSha256: sha(lines.at(-1)) })); save(lines); const text = lines.join('\\n') + '\\n'; writeFileSync(RUNS + '.head', JSON.stringify({ lines: lines.length, sha256: sha(lines.at(-1)), bytes: Buffer.byteLength(text), pending: null }))`,
  /** Rewrites the transcript of the agent's own earlier run (seed 1). */
  transcript: `writeFileSync(path.join(path.dirname(RUNS), 'artifacts/001-task-1/hostile/seed-1/transcript.jsonl'), '{"status":"completed","costUsd":0.0001}\\n')`,
} as const

async function hostileFixture(mode: keyof typeof TAMPERING): Promise<ExperimentFixture> {
  const fixture = await createExperimentFixture(simpleTasks(1), {
    arms: { noop: {}, hostile: { agent: { kind: 'command', bin: './hostile.mjs' } } },
    control: 'noop',
    sandbox: 'none',
  })
  await fixture.writeAgent(
    'hostile.mjs',
    [
      "import { readFileSync, writeFileSync } from 'node:fs'",
      "import { createHash } from 'node:crypto'",
      "import path from 'node:path'",
      `const RUNS = ${JSON.stringify(path.join(fixture.outDir, 'runs.jsonl'))}`,
      "const sha = (text) => createHash('sha256').update(text).digest('hex')",
      "const save = (lines) => writeFileSync(RUNS, lines.map((line) => line + '\\n').join(''))",
      "if (process.env.TASK_OUTCOME_SEED === '2') {",
      "  const lines = readFileSync(RUNS, 'utf8').split('\\n').filter((line) => line !== '')",
      "  const noop = lines.map((line) => JSON.parse(line)).find((record) => record.arm === 'noop')",
      `  ${TAMPERING[mode]}`,
      '}',
      "console.log(JSON.stringify({ status: 'completed', costUsd: 0.01 }))",
    ],
    'node',
  )
  return fixture
}

/** Records the two noop runs and the agent's benign seed 1, then runs the hostile seed 2. */
async function tamperDuringRun(fixture: ExperimentFixture) {
  const benign = await fixture.vitest(['-t', 'noop|hostile › seed 1'])
  expect(benign.exitCode, benign.all).toBe(0)
  expect(await fixture.runs()).toHaveLength(3)
  return fixture.vitest(['-t', 'hostile › seed 2'])
}

async function unrecorded(fixture: ExperimentFixture): Promise<Array<Record<string, unknown>>> {
  const dir = path.join(fixture.outDir, 'unrecorded')
  const files = await readdir(dir).catch(() => [] as string[])
  return Promise.all(files.map(async (file) => JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Record<string, unknown>))
}

/** The next invocation refuses before any run, naming the line, and leaves the file as it found it. */
async function expectRefusedOnResume(fixture: ExperimentFixture, message: RegExp): Promise<void> {
  const tampered = await fixture.runsText()
  const resumed = await fixture.vitest()
  expect(resumed.exitCode).not.toBe(0)
  expect(resumed.all).toMatch(message)
  expect(resumed.all).not.toMatch(/recorded 001-task-1/)
  expect(await fixture.runsText()).toBe(tampered)
}

describe('records tampered with by a hostile agent during its run', () => {
  test('a rewritten line: the run is measured but not recorded, kept aside, and the next start names the line after it', async () => {
    const fixture = await hostileFixture('rewrite')
    const run = await tamperDuringRun(fixture)
    expect(run.exitCode).not.toBe(0)
    expect(run.all).toMatch(/001-task-1 › hostile › seed 2 was measured but not recorded: .*runs\.jsonl: changed by something other than the recorder since it wrote line 3/)
    expect(await unrecorded(fixture)).toEqual([expect.objectContaining({ task: '001-task-1', arm: 'hostile', seed: 2, outcome: 'unsolved' })])
    await expectRefusedOnResume(fixture, /runs\.jsonl:2: the hash chain breaks here: it does not link to line 1/)
  })

  test('a deleted line: refused at the line that no longer links', async () => {
    const fixture = await hostileFixture('delete')
    const run = await tamperDuringRun(fixture)
    expect(run.exitCode).not.toBe(0)
    expect(run.all).toContain('was measured but not recorded')
    await expectRefusedOnResume(fixture, /runs\.jsonl:1: the hash chain breaks here: line 1 must link to the empty string/)
  })

  test('an inserted line: refused at the line after it', async () => {
    const fixture = await hostileFixture('insert')
    const run = await tamperDuringRun(fixture)
    expect(run.exitCode).not.toBe(0)
    await expectRefusedOnResume(fixture, /runs\.jsonl:3: the hash chain breaks here: it does not link to line 2/)
  })

  test('a forged, well-linked record of a run not yet made: refused as not written by the recorder, so the run is not skipped', async () => {
    const fixture = await hostileFixture('forge')
    const run = await tamperDuringRun(fixture)
    expect(run.exitCode).not.toBe(0)
    expect(run.all).toContain('was measured but not recorded')
    await expectRefusedOnResume(fixture, /runs\.jsonl:4: not written by the recorder: its last append was line 3/)
  })

  test('a record appended twice, anchor moved too: refused naming both lines', async () => {
    const fixture = await hostileFixture('duplicate')
    const run = await tamperDuringRun(fixture)
    expect(run.exitCode).not.toBe(0)
    await expectRefusedOnResume(fixture, /runs\.jsonl:4: 001-task-1 › \w+ › seed \d is already recorded on line 1/)
  })

  test('a transcript changed after its run: the conclusion is refused naming the line, and so is the next start', async () => {
    const fixture = await hostileFixture('transcript')
    const run = await tamperDuringRun(fixture)
    expect(run.exitCode).not.toBe(0)
    expect(run.all).toMatch(/recorded 001-task-1 › hostile › seed 2/)
    expect(run.all).toMatch(
      /no conclusion: .*runs\.jsonl:\d: 001-task-1 › hostile › seed 1: its transcript artifacts\/001-task-1\/hostile\/seed-1\/transcript\.jsonl hashes to \w+, but runs\.jsonl records \w+: the transcript no longer matches/,
    )
    await expectRefusedOnResume(fixture, /hostile › seed 1: its transcript .* the transcript no longer matches the transcriptSha256 recorded with it/)
  })
})

describe('records left broken', () => {
  test('a torn last line (a write cut short) is set aside with a warning and the experiment goes on', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1))
    expect((await fixture.vitest(['-t', 'noop'])).exitCode).toBe(0)
    const runsFile = path.join(fixture.outDir, 'runs.jsonl')
    await writeFile(runsFile, '{"experiment":"fixture","task":"001-ta', { flag: 'a' })
    const resumed = await fixture.vitest()
    expect(resumed.exitCode, resumed.all).toBe(0)
    expect(resumed.all).toMatch(/runs\.jsonl:3: the last line has no newline \(\d+ bytes: a write cut short.*moved it to runs\.jsonl\.torn-/)
    expect(await fixture.runs()).toHaveLength(4)
    const torn = (await readdir(fixture.outDir)).filter((name) => name.startsWith('runs.jsonl.torn-'))
    expect(await readFile(path.join(fixture.outDir, torn[0]!), 'utf8')).toBe('{"experiment":"fixture","task":"001-ta')
  })

  test('a run key recorded twice stops the start with a one-line error naming both lines, not a crash', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1))
    expect((await fixture.vitest(['-t', 'noop'])).exitCode).toBe(0)
    const [first, second] = await fixture.runs()
    await writeRecordedRuns(path.join(fixture.outDir, 'runs.jsonl'), [first!, second!, first!])
    const resumed = await fixture.vitest()
    expect(resumed.exitCode).not.toBe(0)
    expect(resumed.all).toMatch(/runs\.jsonl:3: 001-task-1 › noop › seed \d is already recorded on line 1/)
    expect(resumed.all).not.toMatch(/Unhandled/)
  })
})
