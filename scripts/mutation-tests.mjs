// The fast tests of each file of the mutation list whose score is measured (docs/mutation.md: no real runner, no
// bubblewrap): what `npm run mutate -- --changed <base>` gives Stryker's --testFiles, so a change to one of these
// files is mutated in minutes. A changed listed file without an entry is left out, with the reason printed.

/** Listed file → the test files written for it (the `--testFiles` of its row in docs/mutation.md). */
export const FAST_TESTS = {
  'src/runs/chain.ts': ['test/runs/store.test.ts'],
  'src/runs/anchor.ts': ['test/runs/store.test.ts', 'test/runs/anchor.test.ts'],
  'src/runs/consistency.ts': ['test/runs/store.test.ts', 'test/analysis/missing-data.test.ts', 'test/runs/consistency.test.ts'],
  'src/runs/plausibility.ts': ['test/runs/plausibility.test.ts'],
  'src/runs/store.ts': ['test/runs/store.test.ts'],
  'src/runs/task-guard.ts': ['test/runs/task-guard-unit.test.ts', 'test/runs/task-guard-seal.test.ts'],
  'src/oracle/second-channel.ts': ['test/oracle/second-channel.test.ts'],
  'src/oracle/junit/parse.ts': ['test/oracle/junit/parse.test.ts', 'test/oracle/junit/outcome.test.ts', 'test/oracle/junit/shapes.test.ts', 'test/oracle/second-channel.test.ts'],
  'src/oracle/junit/ids.ts': ['test/oracle/junit/parse.test.ts', 'test/oracle/junit/outcome.test.ts', 'test/oracle/junit/shapes.test.ts'],
  'src/oracle/junit/outcome.ts': ['test/oracle/junit/outcome.test.ts', 'test/oracle/junit/shapes.test.ts'],
  'src/oracle/junit/results.ts': ['test/oracle/junit/parse.test.ts', 'test/oracle/junit/outcome.test.ts'],
  'src/workspace/stat-seal.ts': ['test/workspace/stat-seal.test.ts'],
  'src/workspace/changes.ts': ['test/workspace/changes.test.ts'],
  'src/oracle/canaries/call-args.ts': ['test/oracle/canaries/call-args.test.ts', 'test/oracle/canaries/lay.test.ts'],
  'src/oracle/canaries/check.ts': ['test/oracle/canaries/check.test.ts'],
  'src/oracle/canaries/names.ts': ['test/oracle/canaries/names.test.ts'],
  'src/oracle/canaries/family.ts': ['test/oracle/canaries/family.test.ts'],
  'src/oracle/canaries/framework.ts': ['test/oracle/canaries/framework.test.ts'],
  'src/oracle/canaries/twins.ts': ['test/oracle/canaries/twins.test.ts'],
  'src/oracle/canaries/twins-python.ts': ['test/oracle/canaries/twins-python.test.ts'],
  'src/oracle/canaries/decoys.ts': ['test/oracle/canaries/decoys.test.ts'],
  'src/oracle/canaries/lay.ts': ['test/oracle/canaries/lay.test.ts'],
  'src/oracle/disarming/paths.ts': ['test/oracle/disarming/paths.test.ts'],
  'src/oracle/disarming/script-parse.ts': ['test/oracle/disarming/script-parse.test.ts'],
  'src/oracle/disarming/script-values.ts': ['test/oracle/disarming/script-values.test.ts'],
  'src/oracle/disarming/script-ast.ts': ['test/oracle/disarming/script-ast.test.ts'],
  'src/oracle/failure-cause.ts': ['test/oracle/failure-cause.test.ts'],
  'src/oracle/protect.ts': ['test/oracle/protect-unit.test.ts'],
  'src/oracle/test-fields.ts': ['test/oracle/test-fields.test.ts'],
  'src/oracle/folder-defaults.ts': ['test/oracle/folder-defaults-unit.test.ts'],
  'src/oracle/disarming/script-analysis.ts': ['test/oracle/disarming/script-analysis.test.ts'],
  'src/sandbox/proxy-target.ts': ['test/sandbox/proxy-target.test.ts'],
  'src/sandbox/egress.ts': ['test/sandbox/egress-ledger.test.ts'],
  'src/sandbox/process/tags.ts': ['test/sandbox/process/tags.test.ts'],
  'src/sandbox/process/environment.ts': ['test/sandbox/process/environment.test.ts'],
  'src/sandbox/usage-reader.ts': ['test/sandbox/usage-reader.test.ts'],
  'src/oracle/toolchain.ts': ['test/oracle/toolchain-unit.test.ts'],
  'src/oracle/test-command.ts': ['test/oracle/test-command.test.ts'],
  'src/oracle/pytest-guard.ts': ['test/oracle/pytest-guard.test.ts'],
  'src/oracle/preload.ts': ['test/oracle/preload.test.ts'],
  'src/oracle/vitest-harness.ts': ['test/oracle/vitest-harness.test.ts'],
  'src/oracle/verify.ts': ['test/oracle/verify.test.ts'],
  'src/sandbox/process/output.ts': ['test/sandbox/process/output.test.ts'],
  'src/sandbox/identity.ts': ['test/sandbox/identity.test.ts'],
  'src/oracle/copy.ts': ['test/oracle/copy.test.ts'],
  'src/sandbox/installation.ts': ['test/sandbox/installation.test.ts'],
  // command.test.ts runs the filter in real bubblewrap: seccomp.ts's 86.2% was measured with it among the tests.
  'src/sandbox/seccomp.ts': ['test/sandbox/seccomp.test.ts', 'test/sandbox/command.test.ts'],
  'src/sandbox/toolchain.ts': ['test/sandbox/toolchain.test.ts'],
  'src/sandbox/probe.ts': ['test/sandbox/probe-unit.test.ts'],
  'src/sandbox/process/daemon.ts': ['test/sandbox/process/daemon.test.ts'],
  'src/sandbox/process/terminate/timeout.ts': [
    'test/sandbox/process/terminate/timeout.test.ts',
    'test/sandbox/process/terminate/cancel.test.ts',
    'test/sandbox/process/terminate/kill.test.ts',
    'test/sandbox/process/terminate/index.test.ts',
  ],
  'src/sandbox/process/terminate/kill.ts': [
    'test/sandbox/process/terminate/kill.test.ts',
    'test/sandbox/process/terminate/cancel.test.ts',
    'test/sandbox/process/terminate/index.test.ts',
  ],
  'src/sandbox/process/terminate/cancel.ts': [
    'test/sandbox/process/terminate/kill.test.ts',
    'test/sandbox/process/terminate/cancel.test.ts',
    'test/sandbox/process/terminate/index.test.ts',
  ],
  'src/sandbox/process/tree.ts': ['test/sandbox/process/tree.test.ts', 'test/sandbox/process/terminate/kill.test.ts', 'test/sandbox/process/terminate/index.test.ts'],
  'src/sandbox/gateway.ts': ['test/sandbox/gateway.test.ts'],
  'src/sandbox/limits.ts': ['test/sandbox/limits-unit.test.ts'],
  'src/sandbox/network.ts': ['test/sandbox/network-unit.test.ts'],
  'src/sandbox/process/run-process.ts': ['test/sandbox/process/run-process.test.ts'],
  'src/sandbox/process/terminate/index.ts': ['test/sandbox/process/terminate/index.test.ts'],
  'src/oracle/disarming/index.ts': ['test/oracle/disarming/scan.test.ts'],
  'src/oracle/index.ts': ['test/oracle/index.test.ts'],
  'src/sandbox/sandbox.ts': ['test/sandbox/sandbox-unit.test.ts'],
}

/**
 * Splits `files` (listed files a change touched) into those with fast tests, the union of those tests (in the
 * map's order, each once), and those without.
 */
export function fastTestsFor(files, map = FAST_TESTS) {
  const mapped = files.filter((file) => Object.hasOwn(map, file))
  const testFiles = [...new Set(mapped.flatMap((file) => map[file]))]
  return { mapped, testFiles, unmapped: files.filter((file) => !Object.hasOwn(map, file)) }
}

/**
 * The listed files whose fast tests are among `changed` (paths from the repository root), in the map's order: a
 * change that weakens a file's tests lowers its score as surely as one to the file, so both are mutated.
 */
export function filesTestedBy(changed, map = FAST_TESTS) {
  const touched = new Set(changed)
  return Object.keys(map).filter((file) => map[file].some((test) => touched.has(test)))
}
