import { existsSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, test } from 'vitest'
import { BACKUP, packageReadme, restore, swap } from '../../scripts/package-readme.mjs'
import { repoRoot } from '../helpers/experiment-fixture.ts'
import { firstCommands, repositoryReadme, shippedReadme } from '../helpers/readmes.ts'

// Two READMEs from one file: the repository's README.md opens with a clone's commands, the package's (the same
// file without its repository-only parts, with its package-only parts) with a user's. `npm pack` swaps them for
// the pack and back (scripts/package-readme.mjs, run by prepack and postpack).

const README = `# tool

<!-- repository-only -->
\`\`\`sh
npm test
\`\`\`

In your project:

<!-- /repository-only -->
\`\`\`sh
npm install tool
\`\`\`

<!-- package-only
It needs Linux.
-->

Text<!-- repository-only --> for a clone<!-- /repository-only -->.
`

async function folderWith(readme: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'package-readme-'))
  await writeFile(path.join(dir, 'README.md'), readme)
  return dir
}

const script = (command: string, root: string) => execa(process.execPath, [path.join(repoRoot, 'scripts', 'package-readme.mjs'), command, root], { reject: false, all: true })

describe('the two READMEs', () => {
  test("the repository's README opens with a clone's commands: the demo, then the tests", () => {
    expect(firstCommands(repositoryReadme())).toEqual(['npm install && npx vitest run --project demo', 'npm test'])
    expect(repositoryReadme()).toMatch(/^The machine needs Linux .*bubblewrap, socat/m)
  })

  test("the package's README opens with a user's commands: install, init, the scripted-model example", () => {
    const commands = firstCommands(shippedReadme())
    expect(commands).toHaveLength(3)
    expect(commands[0]).toMatch(/^npm install --save-dev task-outcome vitest @anthropic-ai\/claude-code@\d+\.\d+\.\d+$/)
    expect(commands.slice(1)).toEqual(['npx task-outcome init', 'npx vitest run --project example'])
    expect(shippedReadme()).toMatch(/^The machine needs Linux .*bubblewrap, socat and util-linux/m)
    expect(shippedReadme()).not.toMatch(/--project demo|npm test|<!--|-->/)
  })

  test('repository-only parts are left out, package-only parts put in, the rest kept byte for byte', () => {
    expect(packageReadme(README)).toBe('# tool\n\n```sh\nnpm install tool\n```\n\nIt needs Linux.\n\nText.\n')
  })

  test('an unpaired marker is named instead of leaking half a section into the package', () => {
    expect(() => packageReadme('<!-- repository-only -->\nclone\n')).toThrow('README.md: 1 "<!-- repository-only -->" but 0 "<!-- /repository-only -->": pair every marker')
    expect(() => packageReadme('<!-- package-only\nnever closed\n')).toThrow(/"<!-- package-only" block must end with "-->"/)
  })
})

describe('npm pack swaps the package README in and the repository README back', () => {
  test('swap writes the package README and keeps the repository one aside; restore puts it back byte for byte', async () => {
    const dir = await folderWith(README)
    expect((await script('swap', dir)).exitCode).toBe(0)
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe(packageReadme(README))
    expect(await readFile(path.join(dir, BACKUP), 'utf8')).toBe(README)
    expect((await script('restore', dir)).exitCode).toBe(0)
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe(README)
    expect(existsSync(path.join(dir, BACKUP))).toBe(false)
    expect(restore(dir)).toBe(false)
  })

  test('a pack that failed between swap and restore is healed by the next pack, and nothing is lost', async () => {
    const dir = await folderWith(README)
    swap(dir)
    swap(dir)
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe(packageReadme(README))
    expect(await readFile(path.join(dir, BACKUP), 'utf8')).toBe(README)
    expect(restore(dir)).toBe(true)
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe(README)
  })

  test('a README edited while the repository one was aside is kept: both stay, one line says what to do', async () => {
    const dir = await folderWith(README)
    swap(dir)
    await writeFile(path.join(dir, 'README.md'), 'edited during a failed pack\n')
    const run = await script('swap', dir)
    expect(run.exitCode).toBe(1)
    expect(run.all).toBe(
      `task-outcome: ${BACKUP} and README.md both hold edits (README.md is not the package's README made from ${BACKUP}): keep the one you want as README.md and delete ${BACKUP}`,
    )
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe('edited during a failed pack\n')
    expect(await readFile(path.join(dir, BACKUP), 'utf8')).toBe(README)
  })

  test('a directory publish is refused (the registry reads its readme from the folder after postpack)', async () => {
    const run = await script('refuse-directory-publish', repoRoot)
    expect(run.exitCode).toBe(1)
    expect(run.all).toBe(
      'task-outcome: publish the packed tarball, not the folder (the registry would get the repository README): npm pack && npm publish task-outcome-<version>.tgz',
    )
  })
})
