import { readFileSync } from 'node:fs'

/**
 * Whether a process lives: it answers signal 0 and is not a zombie (a zombie
 * answers but is dead, and the container's init may never reap it).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))
  } catch {
    return false
  }
}
