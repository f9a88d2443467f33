import { describe, expect, it } from 'vitest'
import { judgedFixture } from './git-fix-task.ts'
import { calc, calculatorTasks, DISARMS, FORGER } from './node-hostile-sources.ts'

// The second channel and the preload where the task's own test command shapes them. A command that prints spec to
// stdout has that reporter made TAP (the runner formats every test once per reporter), and the oracle reads the
// runner's account from stdout; a command that runs the test files in the runner's own process (isolation none) gets
// the preload's freeze in that process too, where a default run's runner skips it.
const SPEC_ON_STDOUT = 'node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={junit} {tests}'
const IN_PROCESS = 'node --test --experimental-test-isolation=none --test-reporter=junit --test-reporter-destination={junit} {tests}'

// The report forged by rename, and `ok` lines for both tests written into the runner's own stdout (where its TAP goes)
// through /proc before the tests run. That stdout is a socket the harness holds (Node's pipes to a child are socket
// pairs), which no process opens through /proc (ENXIO); a line that got in could only make a test worse, never pass.
const PIPE_FORGER = `${FORGER}
import { openSync, writeSync } from 'node:fs'
try {
  writeSync(openSync('/proc/' + process.ppid + '/fd/1', 'w'), '# Subtest: adds\\nok 1 - adds\\n# Subtest: multiplies\\nok 2 - multiplies\\n')
  console.error('WROTE INTO THE RUNNER STDOUT')
} catch (error) {
  console.error('COULD NOT WRITE ' + error.code)
}
`

const spec = judgedFixture(() => calculatorTasks(SPEC_ON_STDOUT), 'canaries-node-spec-')
const inProcess = judgedFixture(() => calculatorTasks(IN_PROCESS), 'canaries-node-in-process-')

describe('a node --test command that prints spec on stdout', () => {
  it('has its spec reporter made TAP on stdout, and an honest fix stays solved with no flag', async () => {
    const verdict = await spec.judge({ 'src/calc.js': calc('a * b') })
    expect(verdict.solved).toBe(true)
    expect(verdict.integrityFlags).toEqual([])
    expect(verdict.stdout).toMatch(/^ok \d+ - multiplies$/m)
    expect(verdict.stdout).not.toContain('✔')
  })

  it("catches a forged report, and the forger cannot write `ok` lines into the runner's stdout", async () => {
    const verdict = await spec.judge({ 'src/calc.js': `${calc('a + b')}${PIPE_FORGER}` })
    // The test process's own stderr reaches the runner's TAP, on stdout.
    expect(verdict.stdout).toMatch(/# FORGED /)
    expect(verdict.stdout).toContain('# COULD NOT WRITE ENXIO')
    expect(verdict.oracle).toMatchObject({ failToPass: { passed: 1, total: 1 } })
    expect(verdict.solved).toBe(false)
    expect(verdict.stderr).toContain('oracle-disarmed: "multiplies" is passed in the report but failed in the runner\'s own stream')
  })
})

describe('a node --test command that runs the test files in the runner’s own process (isolation none)', () => {
  it('leaves an honest fix solved with no flag', async () => {
    const verdict = await inProcess.judge({ 'src/calc.js': calc('a * b') })
    expect(verdict.solved).toBe(true)
    expect(verdict.integrityFlags).toEqual([])
  })

  it('has node:assert frozen there: the disarm throws on the frozen export, so the flag names the write, not a canary', async () => {
    const verdict = await inProcess.judge({ 'src/calc.js': `${calc('a + b')}${DISARMS['Object.assign']}\n` })
    expect(verdict.solved).toBe(false)
    expect(verdict.integrityFlags).toHaveLength(1)
    expect(verdict.integrityFlags![0]).toMatch(/^oracle-disarmed: code in the test process tried to change a frozen assertion export/)
  })
})
