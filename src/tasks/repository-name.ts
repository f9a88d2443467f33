import path from 'node:path'
import { z } from 'zod'

/**
 * A repository's portable name: what tasks, candidates files, runs.jsonl and
 * the report call it, so records never carry a host's absolute path and a
 * task set drawn from several repositories can be broken down by repository.
 * One path segment of letters, digits, `.`, `_` and `-`.
 */
export const RepositoryNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a repository name: letters, digits, ".", "_" and "-", starting with a letter or digit')

/**
 * The default name of a repository given by its path: the folder's or the
 * bundle's name without a `.git` or `.bundle` ending, other characters than
 * a name allows turned into `-` (`/src/my lib.bundle` → `my-lib`).
 */
export function repositoryName(repoPath: string): string {
  const base = path.basename(path.resolve(repoPath)).replace(/\.(bundle|git)$/i, '')
  const name = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')
  return name === '' ? 'repository' : name
}
