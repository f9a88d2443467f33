import { createHash } from 'node:crypto'
import { mkdtemp, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { create, extract } from 'tar'
import { describe, expect, test } from 'vitest'
import { cli } from './analyze-fixture.ts'
import { scriptedPilot } from './publish-fixture.ts'

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** Unpacks an archive, lets the test change its files, packs them again (the same tool a tamperer would use). */
async function repack(archive: string, change: (dir: string) => Promise<void>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-repack-'))
  await extract({ file: archive, cwd: dir })
  await change(dir)
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
  const out = path.join(os.tmpdir(), `task-outcome-repacked-${process.pid}-${Math.random().toString(16).slice(2)}.tar.gz`)
  await create({ file: out, cwd: dir, gzip: true }, files.sort())
  await rm(dir, { recursive: true })
  return out
}

describe('task-outcome publish and verify-archive', () => {
  test('a complete scripted pilot is published (claim, verdict, pilot label, hashes, command); its archive verifies and is the same bytes when packed again', async () => {
    const fixture = await scriptedPilot({ baselineCost: 0.02, toolCost: 0.01 })
    const run = await fixture.vitest()
    expect(run.exitCode, run.all).toBe(0)
    const claimsFile = path.join(fixture.root, 'site', 'claims.json')
    const archive = path.join(fixture.root, 'pilot-transcripts.tar.gz')

    const published = await cli(['publish', fixture.outDir, '--claims', claimsFile, '--archive', archive])
    expect(published.exitCode, published.all).toBe(0)
    expect(published.stdout).toContain('published fixture')
    expect(published.stdout).toContain('PILOT, not a product claim')

    const runsBytes = await readFile(path.join(fixture.outDir, 'runs.jsonl'))
    const spec = JSON.parse(await readFile(path.join(fixture.outDir, 'spec.json'), 'utf8'))
    const { claims } = JSON.parse(await readFile(claimsFile, 'utf8'))
    expect(claims).toHaveLength(1)
    const [entry] = claims
    expect(entry).toMatchObject({
      experiment: 'fixture',
      specSha256: spec.specSha256,
      stage: 'pilot',
      label: { tag: 'PILOT' },
      productClaim: false,
      claim: "tool lowers the agent's cost per task without lowering its solve rate (against baseline)",
      verdict: 'supported',
      tasks: 5,
      seeds: 1,
      spec: { file: 'tasks/fixture/experiment.ts', exportName: 'default', sha256: spec.specSha256 },
      runs: { sha256: sha256(runsBytes), records: 10, analysed: 10 },
      archive: { sha256: sha256(await readFile(archive)), transcripts: 10 },
      command: `npx task-outcome analyze ${fixture.outDir} --json`,
      rerun: 'npx vitest run --project fixture',
      date: new Date().toISOString().slice(0, 10),
    })
    expect(entry.comparisons[0]).toMatchObject({
      treatment: 'tool',
      control: 'baseline',
      verdict: 'supported',
      medianRelativeChange: -0.5,
      solved: { treatment: 5, control: 5, tasks: 5 },
    })
    expect(Object.keys(entry.versions)).toEqual(expect.arrayContaining(['agent', 'harness', 'node']))

    const reproduced = await cli(entry.command.split(' ').slice(2))
    expect(reproduced.exitCode, reproduced.all).toBe(0)
    expect(`${reproduced.stdout}\n`).toBe(await readFile(path.join(fixture.outDir, 'report.json'), 'utf8'))

    const verified = await cli(['verify-archive', archive, path.join(fixture.outDir, 'runs.jsonl')])
    expect(verified.exitCode, verified.all).toBe(0)
    expect(verified.stdout).toContain('all 10 transcript(s) match')

    const firstBytes = await readFile(archive)
    expect(firstBytes.readUInt32LE(4)).toBe(0)
    const again = await cli(['publish', fixture.outDir, '--claims', claimsFile, '--archive', archive])
    expect(again.exitCode, again.all).toBe(0)
    expect(again.stdout).toContain('replaced the entry in')
    expect((await readFile(archive)).equals(firstBytes)).toBe(true)
    expect(JSON.parse(await readFile(claimsFile, 'utf8')).claims).toHaveLength(1)

    const records = runsBytes
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { transcript: string; task: string; arm: string; seed: number })
    const victim = records[3]!
    const flipped = await repack(archive, async (dir) => {
      const file = path.join(dir, 'transcripts', victim.transcript)
      const bytes = await readFile(file)
      bytes[0] = bytes[0]! ^ 0x01
      await writeFile(file, bytes)
    })
    const mismatch = await cli(['verify-archive', flipped, fixture.outDir])
    expect(mismatch.exitCode).toBe(1)
    expect(mismatch.stderr).toContain(`mismatch: transcripts/${victim.transcript} (the transcript of ${victim.task} › ${victim.arm} › seed ${victim.seed}) hashes to`)

    const dropped = await repack(archive, (dir) => unlink(path.join(dir, 'transcripts', victim.transcript)))
    const missing = await cli(['verify-archive', dropped, fixture.outDir])
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toContain(`missing: transcripts/${victim.transcript} (the transcript of ${victim.task} › ${victim.arm} › seed ${victim.seed}) is not in the archive`)

    const padded = await repack(archive, (dir) => writeFile(path.join(dir, 'transcripts', 'notes.txt'), 'added later\n'))
    const extra = await cli(['verify-archive', padded, fixture.outDir])
    expect(extra.exitCode).toBe(1)
    expect(extra.stderr).toContain('extra file: transcripts/notes.txt is in the archive but no recorded run names it')
  })

  test('a not-supported result is written exactly as a supported one: the same fields, its own verdict and sentence', async () => {
    const fixture = await scriptedPilot({ baselineCost: 0.01, toolCost: 0.02 })
    expect((await fixture.vitest()).exitCode).toBe(0)
    const claimsFile = path.join(fixture.root, 'claims.json')
    const published = await cli(['publish', fixture.outDir, '--claims', claimsFile])
    expect(published.exitCode, published.all).toBe(0)
    const [entry] = JSON.parse(await readFile(claimsFile, 'utf8')).claims
    expect(entry.verdict).toBe('not supported')
    expect(entry.comparisons[0].sentence).toContain('It is a loss')
    expect(Object.keys(entry)).toEqual([
      'experiment',
      'specSha256',
      'stage',
      'label',
      'productClaim',
      'claim',
      'verdict',
      'comparisons',
      'tasks',
      'seeds',
      'spec',
      'changeLog',
      'contamination',
      'runs',
      'report',
      'archive',
      'command',
      'rerun',
      'date',
      'versions',
    ])
    expect(entry.archive.file).toBe(path.join(fixture.outDir, 'artifacts', 'transcripts.tar.gz'))
  })

  test('an incomplete experiment is refused, naming the missing runs; so are a broken hash chain and a missing or altered transcript; nothing is written', async () => {
    const fixture = await scriptedPilot({ tasks: 2, baselineCost: 0.02, toolCost: 0.01 })
    expect((await fixture.vitest(['-t', 'baseline'])).exitCode).toBe(0)
    const claimsFile = path.join(fixture.root, 'claims.json')
    const incomplete = await cli(['publish', fixture.outDir, '--claims', claimsFile])
    expect(incomplete.exitCode).toBe(1)
    expect(incomplete.stderr).toContain(
      'is incomplete, so it has no verdict and cannot be published: 2 planned run(s) missing: 001-task-1 › tool › seed 1; 002-task-2 › tool › seed 1',
    )

    expect((await fixture.vitest()).exitCode).toBe(0)
    const runsFile = path.join(fixture.outDir, 'runs.jsonl')
    const intact = await readFile(runsFile, 'utf8')
    await writeFile(runsFile, intact.replace(/"costUsd":0\.02/, '"costUsd":0.015'))
    const broken = await cli(['publish', fixture.outDir, '--claims', claimsFile])
    expect(broken.exitCode).toBe(1)
    expect(broken.stderr).toMatch(/runs\.jsonl:2: the hash chain breaks here/)
    await writeFile(runsFile, intact)

    const [first, second] = (await fixture.runs()) as Array<{ transcript: string; task: string; arm: string }>
    await unlink(path.join(fixture.outDir, first!.transcript))
    const noTranscript = await cli(['publish', fixture.outDir, '--claims', claimsFile])
    expect(noTranscript.exitCode).toBe(1)
    expect(noTranscript.stderr).toContain(`${first!.task} › ${first!.arm} › seed 1: its transcript ${first!.transcript} is missing`)

    await writeFile(path.join(fixture.outDir, second!.transcript), '{"status":"completed","costUsd":0.0001}\n')
    const altered = await cli(['publish', fixture.outDir, '--claims', claimsFile])
    expect(altered.exitCode).toBe(1)
    expect(altered.stderr).toContain(`${second!.task} › ${second!.arm} › seed 1: its transcript ${second!.transcript} hashes to`)
    await expect(readFile(claimsFile)).rejects.toThrow()
  })
})
