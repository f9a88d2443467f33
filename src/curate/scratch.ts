import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { openRepository, type OpenRepository } from '../workspace/repository.ts'

/**
 * What `harvest` and `select` both do around their work: open the
 * repository (read-only, through the harness's own git), make a scratch
 * folder for the throwaway checkouts, and remove both whatever happens.
 */
export async function withRepositoryScratch<T>(repo: string, label: string, work: (repository: OpenRepository, scratchDir: string) => Promise<T>): Promise<T> {
  const repository = await openRepository(repo)
  try {
    const scratchDir = await mkdtemp(path.join(os.tmpdir(), `task-outcome-${label}-`))
    try {
      return await work(repository, scratchDir)
    } finally {
      await rm(scratchDir, { recursive: true, force: true })
    }
  } finally {
    await repository.dispose()
  }
}
