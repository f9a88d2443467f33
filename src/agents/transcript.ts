import { createHash } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * Saves an agent's raw transcript (what it printed, byte for byte) and returns
 * its SHA-256, which the run record carries so anyone can check the file
 * beside the results is the one the numbers were read from.
 */
export async function saveTranscript(file: string, text: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true })
  const bytes = Buffer.from(text, 'utf8')
  await writeFile(file, bytes)
  return createHash('sha256').update(bytes).digest('hex')
}
