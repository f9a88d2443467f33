// The watchdog of one Vitest invocation: a small process in a session of its
// own that outlives the Vitest main process by design. While the main process
// lives it keeps a snapshot of every process below it (workers, agent CLIs,
// their shells and test runners, setsid'd hooks included); the moment the main
// process is gone (SIGKILL, a crash, Ctrl-C, or a normal exit) it kills every
// process of that snapshot still alive, every process whose environment
// carries the invocation's tag (a daemon that double-forked away from the
// tree), then removes the invocation's workspace folder and exits.
//
// Plain JavaScript on purpose: it runs with `node` alone, on every Node the
// project supports. Linux only (/proc); elsewhere it only removes the folder.
//
//   node watchdog.mjs <main pid> <main start time> <tag variable> <tag> <session dir>
import { readdirSync, readFileSync, rmSync } from 'node:fs'

const [mainPidText, mainStart, tagVariable, tag, sessionDir] = process.argv.slice(2)
const mainPid = Number(mainPidText)
const POLL_MS = 200

/** `/proc/<pid>/stat` as { ppid, start }, or null when the process is gone. */
function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    if (fields[0] === 'Z' || fields[0] === 'X') return null
    return { ppid: Number(fields[1]), start: fields[19] }
  } catch {
    return null
  }
}

function allProcesses() {
  const processes = new Map()
  let entries = []
  try {
    entries = readdirSync('/proc')
  } catch {
    return processes
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const info = stat(Number(entry))
    if (info !== null) processes.set(Number(entry), info)
  }
  return processes
}

/** Every process below `root` in the tree, as pid → start time. */
function descendants(root, processes) {
  const children = new Map()
  for (const [pid, info] of processes) {
    const list = children.get(info.ppid) ?? []
    list.push(pid)
    children.set(info.ppid, list)
  }
  const found = new Map()
  const stack = [root]
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()) ?? []) {
      if (found.has(child) || child === process.pid) continue
      found.set(child, processes.get(child).start)
      stack.push(child)
    }
  }
  return found
}

function carriesTag(pid) {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${tagVariable}=${tag}`)
  } catch {
    return false
  }
}

function mainAlive() {
  const info = stat(mainPid)
  return info !== null && (mainStart === '' || info.start === mainStart)
}

/** The processes of the dead invocation still alive: the last snapshot, the tagged ones, and everything below them. */
function victims(snapshot) {
  const processes = allProcesses()
  const found = new Map()
  for (const [pid, start] of snapshot) if (processes.get(pid)?.start === start) found.set(pid, start)
  for (const [pid, info] of processes) if (pid !== process.pid && !found.has(pid) && carriesTag(pid)) found.set(pid, info.start)
  for (const pid of [...found.keys()]) for (const [child, start] of descendants(pid, processes)) found.set(child, start)
  found.delete(process.pid)
  return found
}

function cleanUp(snapshot) {
  for (let round = 0; round < 50; round++) {
    const left = victims(round === 0 ? snapshot : new Map())
    if (left.size === 0) break
    for (const [pid, start] of left) {
      if (stat(pid)?.start !== start) continue
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Gone already, or not ours to kill.
      }
    }
  }
  try {
    if (sessionDir) rmSync(sessionDir, { recursive: true, force: true, maxRetries: 3 })
  } catch {
    // A folder still in use (a mount): the next start removes it.
  }
  process.exit(0)
}

let snapshot = new Map()
const timer = setInterval(() => {
  if (mainAlive()) {
    snapshot = descendants(mainPid, allProcesses())
    return
  }
  clearInterval(timer)
  cleanUp(snapshot)
}, POLL_MS)
