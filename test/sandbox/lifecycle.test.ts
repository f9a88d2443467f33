import { readdirSync, readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, test } from 'vitest'
import { hostileProject, repoRootOf } from './hostile-agent.ts'

// How a sandboxed run ends: its PID namespace goes with its main process, so nothing it started survives it.

/** Host processes whose command line holds `needle`. */
function hostProcesses(needle: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ')
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0]
      if (cmdline.includes(needle) && state !== 'Z') found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

const unique = () => 3000 + Math.floor(Math.random() * 6000)

describe('a sandboxed run', () => {
  test('leaves nothing running: setsid, nohup, double-forked and setsid env -i children all end with it', async () => {
    const n = unique()
    const project = await hostileProject(`
setsid sleep ${n}.1 </dev/null >/dev/null 2>&1 &
nohup sleep ${n}.2 </dev/null >/dev/null 2>&1 &
( ( sleep ${n}.3 </dev/null >/dev/null 2>&1 & ) & )
setsid env -i /usr/bin/sleep ${n}.4 </dev/null >/dev/null 2>&1 &
sleep 0.3
for i in 1 2 3 4; do pgrep -f "sleep ${n}.$i" >/dev/null && echo "STARTED $i"; done`)
    const { transcript } = await project.run()
    expect(transcript.split('\n').filter((line) => line.startsWith('STARTED'))).toHaveLength(4)
    expect(hostProcesses(`sleep ${n}.`)).toEqual([])
  })

  test('is not held open by a leftover process keeping its stdout: the record comes when the main process ends', async () => {
    const n = unique()
    const project = await hostileProject(`setsid sleep ${n}.5 &\n( sleep ${n}.6 & )\n`, { timeoutSeconds: 60 })
    const started = performance.now()
    const { record } = await project.run()
    expect(record.outcome).not.toBe('timeout')
    expect(performance.now() - started).toBeLessThan(20_000)
    expect(hostProcesses(`sleep ${n}.`)).toEqual([])
  })

  test('does not outlive a SIGKILL of the Vitest process running it, not even a setsid env -i child', async () => {
    const n = unique()
    const project = await hostileProject(`setsid env -i /usr/bin/sleep ${n}.7 </dev/null >/dev/null 2>&1 &\nsleep ${n}.8`)
    const runner = path.join(project.root, 'run-one.mts')
    await writeFile(runner, `import { hostileRunFromEnv } from ${JSON.stringify(path.join(import.meta.dirname, 'hostile-agent.ts'))}\nawait hostileRunFromEnv()\n`)
    // node itself with tsx's loader (not the tsx wrapper, which would leave the real process behind): the killed process is the harness.
    const child = execa(process.execPath, ['--import', 'tsx', runner], {
      env: { ...process.env, HOSTILE_ROOT: project.root, HOSTILE_WORKSPACES: project.workspaceRoot },
      reject: false,
      cwd: repoRootOf(),
    })
    const deadline = Date.now() + 30_000
    while (hostProcesses(`sleep ${n}.7`).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(hostProcesses(`sleep ${n}.7`)).not.toEqual([])
    child.kill('SIGKILL')
    await child
    const killedAt = Date.now()
    const gone = Date.now() + 5000
    while (hostProcesses(`sleep ${n}.`).length > 0 && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(hostProcesses(`sleep ${n}.`)).toEqual([])
    expect(Date.now() - killedAt).toBeLessThan(5000)
  })
})
