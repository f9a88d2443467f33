import { mkdtemp, readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { XMLParser } from 'fast-xml-parser'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, repoRoot, simpleTasks, VITEST_BIN } from '../helpers/experiment-fixture.ts'

// Real Vitest processes on a fixture experiment (gold against noop), each with the
// reporters a user names on the command line instead of the config's.

const KEYS = [
  '001-task-1/gold/1',
  '001-task-1/gold/2',
  '001-task-1/noop/1',
  '001-task-1/noop/2',
  '002-task-2/gold/1',
  '002-task-2/gold/2',
  '002-task-2/noop/1',
  '002-task-2/noop/2',
]
const keysOf = (runs: Array<Record<string, unknown>>) => runs.map((run) => `${run.task}/${run.arm}/${run.seed}`).sort()

interface JunitProperty {
  name: string
  value: string
}
interface JunitCase {
  name: string
  properties?: { property: JunitProperty | JunitProperty[] }
}

function junitCases(xml: string): JunitCase[] {
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testsuite' || name === 'testcase' || name === 'property' }).parse(
    xml,
  ) as {
    testsuites: { testsuite: Array<{ testcase: JunitCase[] }> }
  }
  return parsed.testsuites.testsuite.flatMap((suite) => suite.testcase)
}

describe('recording belongs to the plugin, whatever --reporter names', () => {
  test('--reporter=junit --outputFile alone records every run, prints the verdict, and writes one JUnit property per measure', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    const junitFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'task-outcome-junit-')), 'junit.xml')
    const result = await fixture.vitest(['--reporter=junit', `--outputFile=${junitFile}`])
    expect(result.exitCode, result.all).toBe(0)
    expect(keysOf(await fixture.runs())).toEqual(KEYS)
    expect(result.all).toContain('this invocation: 8 run(s) recorded')
    expect(result.all).toMatch(/verdict: /)

    const cases = junitCases(await readFile(junitFile, 'utf8'))
    expect(cases).toHaveLength(8)
    const runs = await fixture.runs()
    for (const testCase of cases) {
      const properties = [testCase.properties?.property ?? []].flat()
      const names = properties.map((property) => property.name)
      expect(names.sort()).toEqual(['arm', 'costUsd', 'outcome', 'seed', 'specSha256', 'task', 'tokens', 'turns'])
      const value = (name: string) => properties.find((property) => property.name === name)!.value
      const run = runs.find((record) => record.task === value('task') && record.arm === value('arm') && String(record.seed) === value('seed'))!
      expect(testCase.name).toBe(`${run.task} › ${run.arm} › seed ${run.seed}`)
      expect(value('outcome')).toBe(run.outcome)
      expect(Number(value('costUsd'))).toBe(run.costUsd)
      expect(value('specSha256')).toBe(run.specSha256)
    }
  })

  test('--reporter=json on stdout stays a JSON document: the tool prints its own lines on stderr, and records every run', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    // The config gives the json reporter `stdout: true` (Vitest 5 writes its document to a file without it); the
    // command line's --reporter keeps a configured reporter's options.
    const result = await fixture.vitest(['--reporter=json'], { env: { TASK_OUTCOME_JSON_STDOUT: '1' } })
    expect(result.exitCode, result.all).toBe(0)
    const document = JSON.parse(String(result.stdout)) as { numTotalTests: number }
    expect(document.numTotalTests).toBe(8)
    expect(String(result.stderr)).toContain('this invocation: 8 run(s) recorded')
    expect(keysOf(await fixture.runs())).toEqual(KEYS)
  })

  test('--reporter=dot records every run and prints progress lines without terminal codes', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    const result = await fixture.vitest(['--reporter=dot'])
    expect(result.exitCode, result.all).toBe(0)
    expect(keysOf(await fixture.runs())).toEqual(KEYS)
    const progress = String(result.all)
      .split('\n')
      .filter((line) => line.startsWith('task-outcome · fixture: '))
    expect(progress.at(-1)).toMatch(/^task-outcome · fixture: 8\/8 runs recorded · solved noop 0\/4, gold 4\/4 · \$0\.00 spent of \$4\.00 forecast/)
    for (const line of progress) expect(line).not.toMatch(/\x1b/)
  })

  test('a reporter listed in the config too records each run once, not twice', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    const result = await fixture.vitest([], { env: { TASK_OUTCOME_LIST_REPORTER: '1' } })
    expect(result.exitCode, result.all).toBe(0)
    expect(keysOf(await fixture.runs())).toEqual(KEYS)
    expect(String(result.all).match(/ {2}recorded 001-task-1 › gold › seed 1:/g)).toHaveLength(1)
    expect(String(result.all).match(/this invocation: /g)).toHaveLength(1)
  })

  test('in a terminal the progress line is live: it joins the summary Vitest redraws at the bottom', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2, 0.3))
    // `script` gives Vitest a real pseudo-terminal.
    const command = [process.execPath, VITEST_BIN, 'run', '--config', 'test/fixtures/experiment.config.ts', '--project', 'fixture'].map((part) => `'${part}'`).join(' ')
    const result = await execa('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: repoRoot,
      env: { TASK_OUTCOME_EXPERIMENT: fixture.experimentFile, TASK_OUTCOME_ROOT: fixture.root, CI: '', GITHUB_ACTIONS: '' },
      reject: false,
      all: true,
    })
    expect(result.exitCode, result.all).toBe(0)
    expect(keysOf(await fixture.runs())).toEqual(KEYS)
    // eslint-disable-next-line no-control-regex
    const screen = String(result.all).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    expect(screen).toMatch(/ task-outcome · fixture: [1-7]\/8 runs recorded · solved noop \d\/\d, gold \d\/\d · \$0\.00 spent of \$4\.00 forecast/)
    expect(screen).not.toMatch(/^task-outcome · fixture: \d\/8 runs recorded/m)
  })
})
