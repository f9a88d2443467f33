import { randomUUID } from 'node:crypto'
import { rename, rm } from 'node:fs/promises'
import path from 'node:path'

/**
 * Removes a folder published in a shared cache (a template, a prepared
 * dependency folder): renamed aside first, so a concurrent reader sees it
 * either whole or gone, never half removed. Nothing there: nothing to do.
 */
export async function discardPublished(dir: string, root: string): Promise<void> {
  const doomed = path.join(root, `.removing-${randomUUID()}`)
  try {
    await rename(dir, doomed)
  } catch {
    return
  }
  await rm(doomed, { recursive: true, force: true })
}
