import { describe, expect, it } from 'vitest'
import { commandNotFound, missingModule } from '../../src/oracle/failure-cause.ts'

const run = (exitCode: number | null, stderr: string, stdout = '') => ({ exitCode, stdout, stderr })

describe("what a test command's output says went wrong", () => {
  it('names the command bash could not find, in each of its phrasings, sandboxed or not', () => {
    expect(commandNotFound(run(127, 'bash: line 1: python: command not found\n'))).toBe('python')
    expect(commandNotFound(run(127, '/bin/bash: line 1: no-such-python3: command not found\n'))).toBe('no-such-python3')
    expect(commandNotFound(run(127, 'some noise\n/bin/bash: pytest: command not found\n'))).toBe('pytest')
  })

  it('names the command without the spaces around it (a quoted name such as `"python "` that bash prints as given)', () => {
    expect(commandNotFound(run(127, 'bash: line 1: python : command not found\n'))).toBe('python')
    expect(commandNotFound(run(127, 'bash:  pytest: command not found\n'))).toBe('pytest')
  })

  it('says so only for exit 127, and still says it when bash printed nothing it recognises', () => {
    expect(commandNotFound(run(1, 'bash: line 1: python: command not found\n'))).toBeNull()
    expect(commandNotFound(run(null, ''))).toBeNull()
    expect(commandNotFound(run(127, 'env: node: No such file or directory\n'))).toBe('a command (exit 127)')
  })

  it("finds pytest's, Node's and Vitest's missing-module messages, in stdout or stderr", () => {
    expect(missingModule(run(2, '', "E   ModuleNotFoundError: No module named 'freezegun'\n"))).toBe("No module named 'freezegun'")
    expect(missingModule(run(1, "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'left-pad' imported from /w/test/a.test.js\n"))).toBe("Cannot find package 'left-pad'")
    expect(missingModule(run(1, '', "Error: Cannot find module '../src/missing.js' imported from /w/test/b.test.js\n"))).toBe("Cannot find module '../src/missing.js'")
    expect(missingModule(run(1, 'AssertionError: expected 3, got -3\n', '1 failed'))).toBeNull()
  })
})
