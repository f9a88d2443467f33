import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { commandInstallation, installationOf, packageClosure } from '../../src/sandbox/installation.ts'

// What of the machine a sandboxed command is given read-only: its own installation, nothing else of the project
// that holds it. Package trees laid out by hand in a temporary folder.

let dir: string
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'installation-test-')))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Writes `files` (path → text) under `dir`. */
function lay(files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
}

const manifest = (fields: Record<string, unknown> = {}) => JSON.stringify({ name: 'x', ...fields })
const at = (...parts: string[]) => parts.map((part) => path.join(dir, part))

describe('packageClosure', () => {
  test('is the package and every dependency it has, optional ones installed included, nested ones first', () => {
    lay({
      'project/node_modules/cli/package.json': manifest({ dependencies: { lib: '1', shared: '1' }, optionalDependencies: { native: '1', absent: '1' } }),
      'project/node_modules/cli/node_modules/lib/package.json': manifest({ dependencies: { deep: '1' } }),
      'project/node_modules/lib/package.json': manifest(),
      'project/node_modules/shared/package.json': manifest({ dependencies: { cli: '1' } }),
      'project/node_modules/native/package.json': manifest(),
      'project/node_modules/deep/package.json': manifest(),
      'project/node_modules/unrelated/package.json': manifest(),
    })
    expect(packageClosure(path.join(dir, 'project/node_modules/cli'))).toStrictEqual(
      at('project/node_modules/cli', 'project/node_modules/cli/node_modules/lib', 'project/node_modules/deep', 'project/node_modules/native', 'project/node_modules/shared'),
    )
  })

  test('passes over a folder of that name without a package.json on the way up', () => {
    lay({
      'project/node_modules/cli/package.json': manifest({ dependencies: { lib: '1' } }),
      'project/node_modules/cli/node_modules/lib/README': 'a leftover folder, no package',
      'project/node_modules/lib/package.json': manifest(),
    })
    expect(packageClosure(path.join(dir, 'project/node_modules/cli'))).toStrictEqual(at('project/node_modules/cli', 'project/node_modules/lib'))
  })

  test('is the folder alone when its package.json cannot be read or parsed', () => {
    lay({ 'broken/package.json': '{ not json', 'bare/index.js': '' })
    expect(packageClosure(path.join(dir, 'broken'))).toStrictEqual(at('broken'))
    expect(packageClosure(path.join(dir, 'bare'))).toStrictEqual(at('bare'))
  })

  test('takes a package reached by a link once, by its real path', () => {
    lay({
      'store/real-lib/package.json': manifest(),
      'project/node_modules/cli/package.json': manifest({ dependencies: { lib: '1', alias: '1' } }),
    })
    symlinkSync(path.join(dir, 'store/real-lib'), path.join(dir, 'project/node_modules/lib'))
    symlinkSync(path.join(dir, 'store/real-lib'), path.join(dir, 'project/node_modules/alias'))
    expect(packageClosure(path.join(dir, 'project/node_modules/cli'))).toStrictEqual(at('project/node_modules/cli', 'store/real-lib'))
  })

  test('resolves a linked package’s dependencies from where it really is, as Node does (pnpm’s layout)', () => {
    lay({
      'project/node_modules/.pnpm/cli@1/node_modules/cli/package.json': manifest({ dependencies: { lib: '1' } }),
      'project/node_modules/.pnpm/cli@1/node_modules/lib/package.json': manifest(),
    })
    symlinkSync(path.join(dir, 'project/node_modules/.pnpm/cli@1/node_modules/cli'), path.join(dir, 'project/node_modules/cli'))
    expect(packageClosure(path.join(dir, 'project/node_modules/cli'))).toStrictEqual(
      at('project/node_modules/.pnpm/cli@1/node_modules/cli', 'project/node_modules/.pnpm/cli@1/node_modules/lib'),
    )
  })
})

describe('installationOf', () => {
  test.each([
    ['a relative path', 'bin/tool'],
    ['a path that does not exist', '/nonexistent/task-outcome/tool'],
    ['a system file under /usr/', '/usr/bin/env'],
    ['a system file under /etc/', '/etc/passwd'],
    ['a system folder', '/usr/lib'],
  ])('is nothing for %s', (_what, file) => {
    expect(installationOf(file)).toStrictEqual([])
  })

  test('is nothing for a link that resolves into a system folder', () => {
    symlinkSync('/usr/bin/env', path.join(dir, 'env'))
    expect(installationOf(path.join(dir, 'env'))).toStrictEqual([])
  })

  test('is a folder itself, by its real path', () => {
    mkdirSync(path.join(dir, 'tools'))
    symlinkSync(path.join(dir, 'tools'), path.join(dir, 'tools-link'))
    expect(installationOf(path.join(dir, 'tools-link'))).toStrictEqual(at('tools'))
  })

  test('is a script outside any package alone, not the project around it', () => {
    lay({ 'project/package.json': manifest({ dependencies: { lib: '1' } }), 'project/node_modules/lib/package.json': manifest(), 'project/agent.sh': '' })
    expect(installationOf(path.join(dir, 'project/agent.sh'))).toStrictEqual(at('project/agent.sh'))
  })

  test('is both a link and the script it points to', () => {
    lay({ 'real/agent.sh': '' })
    symlinkSync(path.join(dir, 'real/agent.sh'), path.join(dir, 'agent'))
    expect(installationOf(path.join(dir, 'agent'))).toStrictEqual(at('agent', 'real/agent.sh'))
  })

  test.each([
    ['at the package’s top', 'project/node_modules/cli/cli.js'],
    ['deep inside the package', 'project/node_modules/cli/dist/bin/cli.js'],
    ['inside a folder of the package that has a package.json of its own (its module type)', 'project/node_modules/cli/esm/index.js'],
  ])('is the closure of the package that holds a file %s', (_what, file) => {
    lay({
      'project/node_modules/cli/package.json': manifest({ dependencies: { lib: '1' } }),
      'project/node_modules/cli/cli.js': '',
      'project/node_modules/cli/dist/bin/cli.js': '',
      'project/node_modules/cli/esm/package.json': manifest({ type: 'module' }),
      'project/node_modules/cli/esm/index.js': '',
      'project/node_modules/lib/package.json': manifest(),
    })
    expect(installationOf(path.join(dir, file))).toStrictEqual(at('project/node_modules/cli', 'project/node_modules/lib'))
  })

  test('is the closure of a scoped package that holds the file', () => {
    lay({
      'project/node_modules/@scope/cli/package.json': manifest({ dependencies: { '@scope/lib': '1' } }),
      'project/node_modules/@scope/cli/bin/cli.js': '',
      'project/node_modules/@scope/lib/package.json': manifest(),
    })
    expect(installationOf(path.join(dir, 'project/node_modules/@scope/cli/bin/cli.js'))).toStrictEqual(at('project/node_modules/@scope/cli', 'project/node_modules/@scope/lib'))
  })

  test('is the file alone in a scope-like folder that is not under node_modules', () => {
    lay({ 'tools/@team/agent/package.json': manifest({ dependencies: { lib: '1' } }), 'tools/@team/agent/run.sh': '', 'tools/node_modules/lib/package.json': manifest() })
    expect(installationOf(path.join(dir, 'tools/@team/agent/run.sh'))).toStrictEqual(at('tools/@team/agent/run.sh'))
  })

  test('is the file alone when no folder above it under node_modules is a package', () => {
    lay({ 'project/node_modules/.bin/tool': '' })
    expect(installationOf(path.join(dir, 'project/node_modules/.bin/tool'))).toStrictEqual(at('project/node_modules/.bin/tool'))
  })
})

describe('commandInstallation', () => {
  test('is the executable’s installation and its first argument’s (an interpreter’s script), each path once', () => {
    lay({
      'project/node_modules/cli/package.json': manifest(),
      'project/node_modules/cli/cli.js': '',
      'project/node_modules/cli/other.js': '',
      'tools/node': '',
    })
    expect(commandInstallation(path.join(dir, 'tools/node'), [path.join(dir, 'project/node_modules/cli/cli.js'), path.join(dir, 'tools/node')])).toStrictEqual(
      at('tools/node', 'project/node_modules/cli'),
    )
    expect(commandInstallation(path.join(dir, 'project/node_modules/cli/cli.js'), [path.join(dir, 'project/node_modules/cli/other.js')])).toStrictEqual(
      at('project/node_modules/cli'),
    )
  })

  test('is the executable’s alone without arguments, or when the first is no path', () => {
    lay({ 'agent.sh': '' })
    expect(commandInstallation(path.join(dir, 'agent.sh'), [])).toStrictEqual(at('agent.sh'))
    expect(commandInstallation(path.join(dir, 'agent.sh'), ['--flag', path.join(dir, 'agent.sh')])).toStrictEqual(at('agent.sh'))
    expect(commandInstallation('/usr/bin/env', ['-i'])).toStrictEqual([])
  })
})
