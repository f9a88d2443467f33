// Mutation testing of the trust-critical code (`npm run mutate`, scripts/mutate.mjs): each mutant is one small
// change to a defence; a test must go red for it. Per-test coverage, so a mutant runs only the tests that reach it.
// `npm run mutate -- --mutate src/runs/chain.ts` mutates one file; `--testFiles` narrows the tests.
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', pool: 'forks', related: true },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/oracle/**/*.ts',
    'src/sandbox/**/*.ts',
    'src/runs/{chain,anchor,store,consistency,plausibility,task-guard}.ts',
    'src/workspace/{changes,stat-seal}.ts',
    // Re-exports only (the other index files hold code: terminate's policy, the disarming scan, the oracle's dispatch).
    '!src/sandbox/index.ts',
  ],
  // Real CLIs and sandboxes: one runner per core of a shared 2-core machine. A mutant times out (detected) after
  // 1.5 times its tests' own time plus 10 s: the scores in docs/mutation.md were measured so, and with 60 s each
  // mutant that never ends a stream or a wait cost CI a minute.
  concurrency: 2,
  timeoutMS: 10_000,
  dryRunTimeoutMinutes: 90,
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The per-file floor is checked by scripts/mutate.mjs (Stryker's own `break` is for the whole run).
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['reports', 'test-artifacts', 'dist', '.stryker-tmp'],
}
