import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs'
import path from 'node:path'

/**
 * Writes a file whole or not at all: a temporary file beside it (named by the
 * process, so two writers never share one), fsynced, then renamed over it. A
 * crash leaves the old file or the new one, never half of either. Makes the
 * folder when it is missing.
 */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  const fd = openSync(temporary, 'w')
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, file)
}
