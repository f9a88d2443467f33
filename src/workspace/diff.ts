import { chmod, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { baseContent, pathState, type Change, type Snapshot, type WorkspaceTrees } from './changes.ts'
import { directoryInside, readFileInside, readLinkInside } from './inside.ts'
import { runProcess, UNSANDBOXED_HOST } from '../sandbox/index.ts'
import { sha256 } from '../shared/sha256.ts'

/**
 * The unified diff of the agent's changes, made by the harness: the before
 * and after versions of each changed path are written into two folders of
 * its own, outside any repository, and `git diff --no-index` compares them
 * with no system or user configuration, no external diff program and no
 * text conversion. Nothing of the workspace's `.git` is read, and no link
 * the agent left is followed: the after side is read with every component
 * checked, and a path is placed only below real folders of the diff's own
 * (a changed path below one the agent replaced with a link is never written
 * through that link).
 */

/**
 * Files larger than this (bytes) are in the diff by size and SHA-256 only: a
 * run may write up to its disk limit, and a patch of that would cost the
 * host's disk as much again.
 */
export const DIFF_CONTENT_LIMIT = 4 * 1024 * 1024

/** A file's content as the diff shows it: itself, or one line with its size and SHA-256 when it is too large. */
function diffable(content: Buffer): Buffer | string {
  if (content.length <= DIFF_CONTENT_LIMIT) return content
  return `${content.length} bytes, sha256 ${sha256(content)} (too large to diff)\n`
}

async function place(root: string, file: string, write: (target: string) => Promise<void>): Promise<void> {
  const parent = path.posix.dirname(file)
  if (!(await directoryInside(root, parent === '.' ? '' : parent, false))) return
  await write(path.join(root, file))
}

/** Every non-folder below `relative` in the template (the lower tree, the harness's own). */
async function lowerEntriesBelow(lower: string, relative: string): Promise<string[]> {
  const entries = await readdir(path.join(lower, relative), { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((entry) => !entry.isDirectory()).map((entry) => path.relative(lower, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
}

/** The binary-safe unified diff (`diff --git a/<path> b/<path>`), empty when nothing changed. */
export async function diffChanges(trees: WorkspaceTrees, snapshot: Snapshot, changes: readonly Change[]): Promise<string> {
  if (changes.length === 0) return ''
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-diff-'))
  try {
    const before = path.join(scratch, 'a')
    const after = path.join(scratch, 'b')
    await Promise.all([mkdir(before), mkdir(after)])
    for (const change of changes) {
      if (change.before?.kind === 'directory') {
        // A folder the agent replaced (by a link, a file, or nothing): its files as the template holds them.
        for (const file of await lowerEntriesBelow(trees.lower, change.path)) {
          const state = await pathState(trees.lower, file)
          if (state?.kind === 'file') {
            const content = diffable((await readFileInside(trees.lower, file)) ?? Buffer.alloc(0))
            await place(before, file, async (target) => {
              await writeFile(target, content, { flag: 'wx' })
              if (state.executable) await chmod(target, 0o755)
            })
          } else if (state?.kind === 'link') {
            await place(before, file, (target) => symlink(state.target, target))
          }
        }
      } else if (change.before?.kind === 'file') {
        const content = diffable((await baseContent(trees, snapshot, change.path)) ?? Buffer.alloc(0))
        await place(before, change.path, async (target) => {
          await writeFile(target, content, { flag: 'wx' })
          if (change.before?.kind === 'file' && change.before.executable) await chmod(target, 0o755)
        })
      } else if (change.before?.kind === 'link') {
        const linkTarget = change.before.target
        await place(before, change.path, (target) => symlink(linkTarget, target))
      }
      if (change.after?.kind === 'file') {
        const content = diffable((await readFileInside(trees.merged, change.path)) ?? Buffer.alloc(0))
        await place(after, change.path, async (target) => {
          await writeFile(target, content, { flag: 'wx' })
          await chmod(target, change.after?.kind === 'file' && change.after.executable ? 0o755 : 0o644)
        })
      } else if (change.after?.kind === 'link') {
        const linkTarget = (await readLinkInside(trees.merged, change.path)) ?? ''
        await place(after, change.path, (target) => symlink(linkTarget, target))
      }
    }
    // The harness's own git on its own scratch copies (never the agent's tree), on the host.
    const result = await runProcess(
      { file: 'git', args: ['diff', '--no-index', '--no-prefix', '--binary', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-color', '--', 'a', 'b'] },
      {
        cwd: scratch,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: scratch,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_CEILING_DIRECTORIES: path.dirname(scratch),
        },
        stripFinalNewline: false,
        sandbox: UNSANDBOXED_HOST,
      },
    )
    if (result.exitCode !== 0 && result.exitCode !== 1) throw new Error(`git diff --no-index failed (exit ${result.exitCode}): ${result.stderr}`)
    // The folders are named a and b, so --no-prefix gives the usual a/ b/ paths; an added or deleted file's
    // header names one folder twice (`diff --git b/x b/x`): make it `a/x b/x` like every other.
    return result.stdout.replace(/^diff --git [ab]\/(.*) [ab]\/\1$/gm, 'diff --git a/$1 b/$1')
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}
