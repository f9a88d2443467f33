import { chmod, copyFile, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { baseContent, type Change, type Snapshot, type WorkspaceTrees } from './changes.ts'
import { runProcess, UNSANDBOXED_HOST } from '../sandbox/index.ts'

/**
 * The unified diff of the agent's changes, made by the harness: the before
 * and after versions of each changed path are written into two folders of
 * its own, outside any repository, and `git diff --no-index` compares them
 * with no system or user configuration, no external diff program and no
 * text conversion. Nothing of the workspace's `.git` is read.
 */

async function place(root: string, file: string, write: (target: string) => Promise<void>): Promise<void> {
  const target = path.join(root, file)
  await mkdir(path.dirname(target), { recursive: true })
  await write(target)
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
      if (change.before?.kind === 'file') {
        const content = (await baseContent(trees, snapshot, change.path)) ?? Buffer.alloc(0)
        await place(before, change.path, async (target) => {
          await writeFile(target, content)
          if (change.before?.kind === 'file' && change.before.executable) await chmod(target, 0o755)
        })
      } else if (change.before?.kind === 'link') {
        const linkTarget = change.before.target
        await place(before, change.path, (target) => symlink(linkTarget, target))
      }
      if (change.after?.kind === 'file') {
        await place(after, change.path, async (target) => {
          await copyFile(path.join(trees.merged, change.path), target)
          await chmod(target, change.after?.kind === 'file' && change.after.executable ? 0o755 : 0o644)
        })
      } else if (change.after?.kind === 'link') {
        const linkTarget = await readlink(path.join(trees.merged, change.path))
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
