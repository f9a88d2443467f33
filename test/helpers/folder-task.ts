import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { FolderTask } from '../../src/tasks/task.ts'

/** What a folder task laid out by hand holds besides `starting/`: its scripts (absent: none) and its globs. */
export interface FolderTaskParts {
  /** verify.sh's text (absent: no file, as the protected-paths tests need). */
  readonly verify?: string
  /** The reference solution script's text (absent: no solution). */
  readonly solve?: string
  readonly protect?: readonly string[]
  readonly editable?: readonly string[]
}

/**
 * A folder task in a fresh temp folder whose `starting/` holds `starting` (relative path → content), for the
 * oracle's tests of verify.sh and of the protected paths.
 */
export async function folderTask(prefix: string, starting: Readonly<Record<string, string>>, parts: FolderTaskParts = {}): Promise<FolderTask> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix))
  const startingDir = path.join(dir, 'starting')
  await mkdir(startingDir)
  for (const [file, content] of Object.entries(starting)) {
    await mkdir(path.dirname(path.join(startingDir, file)), { recursive: true })
    await writeFile(path.join(startingDir, file), content)
  }
  if (parts.verify !== undefined) await writeFile(path.join(dir, 'verify.sh'), `${parts.verify}\n`)
  if (parts.solve !== undefined) await writeFile(path.join(dir, 'solve.sh'), `${parts.solve}\n`)
  return {
    kind: 'folder',
    id: '001-task',
    dir,
    prompt: 'Fix it.',
    files: [],
    metadata: {
      id: '001',
      slug: 'task',
      kind: 'folder',
      target_skill: 'none',
      irrelevant_skill: 'none',
      category: 'bugfix',
      difficulty: 'easy',
      protect: [...(parts.protect ?? [])],
      editable: [...(parts.editable ?? [])],
    },
    startingDir,
    verifyScript: path.join(dir, 'verify.sh'),
    solution: parts.solve === undefined ? null : { kind: 'script', path: path.join(dir, 'solve.sh') },
  } as FolderTask
}
