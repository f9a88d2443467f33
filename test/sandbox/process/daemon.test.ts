import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { startDaemon } from '../../../src/sandbox/process/daemon.ts'
import { waitFor } from '../../helpers/wait-for.ts'

// A harness process meant to outlive the one that starts it (the invocation's watchdog), started for real.

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'daemon-test-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

test('starts in a session of its own, stdio closed, with exactly the environment given', async () => {
  const file = path.join(dir, 'seen')
  const script = `{ echo "sid=$(ps -o sid= -p $$ | tr -d ' ') pid=$$"; env | grep -v '^PWD=\\|^SHLVL=\\|^_=' | sort; [ -t 0 ] || read -r line || echo stdin-empty; } > ${file}.tmp 2>&1; mv ${file}.tmp ${file}`
  startDaemon('/bin/bash', ['-c', script], { PATH: '/usr/bin:/bin', TOKEN: 'a b', UNSET: undefined })
  await waitFor(() => existsSync(file), 'the daemon to write')
  const [session, ...rest] = readFileSync(file, 'utf8').trim().split('\n')
  const [, sid, pid] = /^sid=(\d+) pid=(\d+)$/.exec(session!)!
  expect(sid).toBe(pid)
  expect(rest).toStrictEqual(['PATH=/usr/bin:/bin', 'TOKEN=a b', 'stdin-empty'])
})

test('does not keep the harness waiting: it is unreferenced', async () => {
  const file = path.join(dir, 'done')
  const before = process.getActiveResourcesInfo().filter((kind) => kind === 'ProcessWrap').length
  startDaemon('/bin/sh', ['-c', `sleep 0.3; echo done > ${file}`], { PATH: '/usr/bin:/bin' })
  expect(process.getActiveResourcesInfo().filter((kind) => kind === 'ProcessWrap').length).toBe(before)
  await waitFor(() => existsSync(file), 'the daemon to finish')
})
