import { describe, expect, test } from 'vitest'
import { createExperimentFixture } from '../helpers/experiment-fixture.ts'

// A folder task that declares no `protect`, whose verify.sh runs the code through npm and reads a data file, against
// hostile `command` agents (as root in their sandbox) that fix nothing and instead edit the data, plant an .npmrc whose
// node-options preload prints the expected answer, or plant an .npmrc whose script-shell does: through the real path
// (the plugin, the sandbox, the oracle), each is unsolved because what it planted never reached verify.sh's copy.
const TOTAL = (add: number) => `const fs = require('node:fs')\nconsole.log(Number(fs.readFileSync('base.txt', 'utf8')) + ${add})\n`
const agents = {
  data: ['echo 2 > base.txt'],
  preload: ['mkdir -p .hooks', "echo 'node-options=--import=./.hooks/env.mjs' > .npmrc", 'echo \'process.stdout.write("3\\n"); process.exit(0)\' > .hooks/env.mjs'],
  shell: ['mkdir -p .hooks', "echo 'script-shell=./.hooks/sh' > .npmrc", "printf '#!/bin/sh\\necho 3\\n' > .hooks/sh", 'chmod +x .hooks/sh'],
}

describe("a folder task's safe defaults, without protect", () => {
  test('gold solves, noop does not, and agents that edit the data or plant npm configuration are unsolved', async () => {
    const fixture = await createExperimentFixture(
      [
        {
          id: '001-total',
          starting: { 'package.json': '{ "private": true, "scripts": { "total": "node total.js" } }\n', 'total.js': TOTAL(1), 'base.txt': '1\n' },
          verify: 'out=$(npm run --silent total)\n[ "$out" = 3 ] || { echo "expected 3, got $out"; exit 1; }',
          solve: "sed -i 's/+ 1/+ 2/' total.js",
        },
      ],
      {
        arms: {
          gold: { agent: { kind: 'gold' } },
          noop: { agent: { kind: 'noop' } },
          ...Object.fromEntries(Object.keys(agents).map((name) => [name, { agent: { kind: 'command', bin: `./${name}.sh` } }])),
        },
        control: 'noop',
        seeds: 1,
      },
    )
    for (const [name, lines] of Object.entries(agents)) await fixture.writeAgent(`${name}.sh`, [...lines, `echo '{"status":"completed","costUsd":0.01}'`])
    const result = await fixture.vitest()
    expect(result.exitCode, result.all).toBe(0)
    const runs = await fixture.runs()
    const arm = (name: string) => runs.find((run) => run.arm === name)
    expect(arm('gold'), result.all).toMatchObject({ outcome: 'solved', oracle: { verifyExit: 0 } })
    expect(arm('noop')).toMatchObject({ outcome: 'unsolved', oracle: { verifyExit: 1 } })
    expect(arm('data')).toMatchObject({ outcome: 'unsolved', oracle: { verifyExit: 1 }, changedFiles: ['base.txt'] })
    expect(arm('preload')).toMatchObject({ outcome: 'unsolved', oracle: { verifyExit: 1 }, changedFiles: ['.hooks/env.mjs', '.npmrc'] })
    expect(arm('shell')).toMatchObject({ outcome: 'unsolved', oracle: { verifyExit: 1 }, changedFiles: ['.hooks/sh', '.npmrc'] })
  }, 300_000)
})
