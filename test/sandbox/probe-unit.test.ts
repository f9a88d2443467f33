import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { SpecError } from '../../src/errors.ts'
import { probeSandbox, resetSandboxProbe, SANDBOX_INSTALL, SandboxUnavailable, sandboxLabel, UNSANDBOXED } from '../../src/sandbox/probe.ts'

// The sandbox probe against machines laid out on PATH: the real tools linked in, and stand-ins (sh scripts) for
// a bubblewrap, socat or unshare that is missing, prints no version or fails.

const savedPath = process.env.PATH
let bin: string
beforeEach(() => {
  bin = mkdtempSync(path.join(os.tmpdir(), 'probe-test-'))
  resetSandboxProbe()
})
afterEach(() => {
  process.env.PATH = savedPath
  resetSandboxProbe()
  rmSync(bin, { recursive: true, force: true })
})

/** A PATH holding the real `tools` and, for each of `fakes`, an sh script of that name. */
function machine(tools: readonly string[], fakes: Record<string, string> = {}): void {
  // `true` is what the trials run.
  for (const tool of [...tools, 'true']) symlinkSync(`/usr/bin/${tool}`, path.join(bin, tool))
  for (const [name, script] of Object.entries(fakes)) {
    writeFileSync(path.join(bin, name), `#!/bin/sh\n${script}\n`)
    chmodSync(path.join(bin, name), 0o755)
  }
  process.env.PATH = bin
}

async function refusal(): Promise<string> {
  const error = await probeSandbox().catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(SandboxUnavailable)
  expect(error).toBeInstanceOf(SpecError)
  const message = (error as Error).message
  expect(message).toMatch(
    /^no working sandbox: .+\. Install it \(sudo apt-get install bubblewrap socat\), or set the experiment's sandbox: 'none' to run every agent UNSANDBOXED \(every record and report then says so\)$/,
  )
  return message.slice('no working sandbox: '.length, message.indexOf('. Install it'))
}

describe('probeSandbox', () => {
  test('names bubblewrap and the version it prints', async () => {
    machine(['socat', 'unshare'], { bwrap: '[ "$1" = --version ] && echo "bubblewrap 0.11.2" && exit 0; exec /usr/bin/bwrap "$@"' })
    expect(await probeSandbox()).toStrictEqual({ name: 'bubblewrap', version: '0.11.2' })
  })

  test('reads every digit of each part of the version', async () => {
    machine(['socat', 'unshare'], { bwrap: '[ "$1" = --version ] && echo "bubblewrap 10.11.25" && exit 0; exec /usr/bin/bwrap "$@"' })
    expect(await probeSandbox()).toStrictEqual({ name: 'bubblewrap', version: '10.11.25' })
  })

  test('reads a two-part version too', async () => {
    machine(['socat', 'unshare'], { bwrap: '[ "$1" = --version ] && echo "bubblewrap 1.2" && exit 0; exec /usr/bin/bwrap "$@"' })
    expect(await probeSandbox()).toStrictEqual({ name: 'bubblewrap', version: '1.2' })
  })

  test('probes once per process until reset', async () => {
    const log = path.join(bin, 'calls.log')
    machine(['socat', 'unshare'], { bwrap: `[ "$1" = --version ] && echo probed >> ${log}; [ "$1" = --version ] && echo "bubblewrap 0.8.0" && exit 0; exec /usr/bin/bwrap "$@"` })
    await Promise.all([probeSandbox(), probeSandbox()])
    await probeSandbox()
    expect(readFileSync(log, 'utf8')).toBe('probed\n')
    resetSandboxProbe()
    await probeSandbox()
    expect(readFileSync(log, 'utf8')).toBe('probed\nprobed\n')
  })

  test('without bubblewrap, says it is not installed', async () => {
    machine(['socat', 'unshare'])
    expect(await refusal()).toBe('bubblewrap (bwrap) is not installed')
  })

  test.each([
    ['prints no version', 'echo "bubblewrap, a sandbox"; exit 0', '`bwrap --version` failed: bubblewrap, a sandbox'],
    ['fails', 'echo "bwrap: broken install" >&2; echo second line >&2; exit 1', '`bwrap --version` failed: bwrap: broken install'],
  ])('with a bubblewrap that %s, names its first line', async (_what, script, reason) => {
    machine(['socat', 'unshare'], { bwrap: script })
    expect(await refusal()).toBe(reason)
  })

  test('with a bubblewrap that cannot make namespaces, says so with its first line', async () => {
    machine(['socat', 'unshare'], {
      bwrap: '[ "$1" = --version ] && echo "bubblewrap 0.8.0" && exit 0; echo "bwrap: No permissions to create new namespace" >&2; echo more >&2; exit 1',
    })
    expect(await refusal()).toBe('bubblewrap cannot make namespaces here (unprivileged user namespaces disabled?): bwrap: No permissions to create new namespace')
  })

  test('tries the namespaces bubblewrap must make, all of them', async () => {
    const log = path.join(bin, 'args.log')
    machine(['socat', 'unshare'], { bwrap: `echo "$*" >> ${log}; [ "$1" = --version ] && echo "bubblewrap 0.8.0" && exit 0; exec /usr/bin/bwrap "$@"` })
    await probeSandbox()
    expect(readFileSync(log, 'utf8').trim().split('\n')).toStrictEqual(['--version', '--ro-bind / / --unshare-all --die-with-parent --new-session --dev /dev --proc /proc true'])
  })

  test('without socat, says the network bridge is missing', async () => {
    machine(['bwrap', 'unshare'])
    expect(await refusal()).toBe("socat (the sandbox's network bridge) is not installed")
  })

  test('with a socat that fails, goes on (only a missing one refuses)', async () => {
    machine(['bwrap', 'unshare'], { socat: 'exit 3' })
    expect((await probeSandbox()).name).toBe('bubblewrap')
  })

  test.each([
    ['fails', 'echo "unshare: unshare failed: Operation not permitted" >&2; exit 1', 'unshare: unshare failed: Operation not permitted'],
    ['is missing', undefined, ''],
  ])('with an unshare that %s, says the overlay needs it', async (_what, script, first) => {
    machine(['bwrap', 'socat'], script === undefined ? {} : { unshare: script })
    const reason = await refusal()
    expect(reason.startsWith('`unshare --user --map-root-user --mount` fails (the workspace overlay needs it): ')).toBe(true)
    if (first !== '') expect(reason.endsWith(first)).toBe(true)
  })

  test('runs the tools with only PATH in their environment, stdin closed', async () => {
    const log = path.join(bin, 'env.log')
    process.env.PROBE_TEST_SECRET = 'leaked'
    try {
      machine(['socat', 'unshare'], {
        bwrap: `[ "$1" = --version ] && { /usr/bin/env | /usr/bin/grep -v '^PWD=\\|^SHLVL=\\|^_=' | /usr/bin/sort > ${log}; read line && echo "read $line" >> ${log}; echo "bubblewrap 0.8.0"; exit 0; }; exec /usr/bin/bwrap "$@"`,
      })
      await probeSandbox()
      expect(readFileSync(log, 'utf8').trim().split('\n')).toStrictEqual([`PATH=${bin}`])
    } finally {
      delete process.env.PROBE_TEST_SECRET
    }
  })
})

describe('the sandbox’s labels', () => {
  test('name the sandbox and its version, or say UNSANDBOXED', () => {
    expect(sandboxLabel({ name: 'bubblewrap', version: '0.8.0' })).toBe('bubblewrap 0.8.0')
    expect(UNSANDBOXED).toBe('none (UNSANDBOXED)')
    expect(SANDBOX_INSTALL).toBe('sudo apt-get install bubblewrap socat')
  })
})
