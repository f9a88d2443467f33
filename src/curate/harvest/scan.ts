import type { SimpleGit } from 'simple-git'
import { applyRule, fileRoles, ruleMatchers, type ChangedPath, type FileRoles, type HarvestRule, type ScannedCommit } from './rule.ts'

/** A commit that passed every gate of the rule but the last (FAIL_TO_PASS), oldest first. */
export interface EligibleCommit {
  readonly fix: string
  readonly base: string
  readonly date: string
  readonly subject: string
  readonly roles: FileRoles
}

/** A commit whose subject matched but which a file or date gate turned away. */
export interface RejectedCommit {
  readonly fix: string
  readonly date: string
  readonly subject: string
  readonly reason: string
}

/** What one pass over the history found. */
export interface ScanResult {
  /** Commits read (merges included). */
  readonly scanned: number
  /** Commits whose subject matched. */
  readonly matched: number
  /** Oldest first. */
  readonly eligible: EligibleCommit[]
  /** Oldest first. */
  readonly rejected: RejectedCommit[]
}

const RECORD = '\x1e'

/** Parses `git log -z --format=%x1e%H%x00%P%x00%cI%x00%s --name-status` output, newest first as git prints it. */
export function parseLog(output: string): ScannedCommit[] {
  const commits: ScannedCommit[] = []
  for (const record of output.split(RECORD)) {
    if (record === '') continue
    const fields = record.split('\0')
    const [id = '', parents = '', date = '', subject = ''] = fields
    const changes: ChangedPath[] = []
    for (let i = 4; i + 1 < fields.length; i += 2) {
      const status = fields[i]!.replace(/^\n/, '')
      if (status === '') break
      changes.push({ status, path: fields[i + 1]! })
    }
    commits.push({ id, parents: parents === '' ? [] : parents.split(' '), date, subject, changes })
  }
  return commits
}

/**
 * One pass over the history of `rev` (default HEAD): every commit with the
 * paths it changes (a rename counts as a delete plus an add; a merge lists
 * none and is rejected for having two parents). Commits whose subject
 * matches the rule are sorted into eligible and rejected.
 */
export async function scanHistory(git: SimpleGit, rule: HarvestRule, rev = 'HEAD'): Promise<ScanResult> {
  const output = await git.raw(['log', '-z', '--no-renames', '--format=%x1e%H%x00%P%x00%cI%x00%s', '--name-status', rev, '--'])
  const commits = parseLog(output).reverse()
  const matchers = ruleMatchers(rule)
  const eligible: EligibleCommit[] = []
  const rejected: RejectedCommit[] = []
  let matched = 0
  for (const commit of commits) {
    if (!rule.subject.test(commit.subject)) continue
    matched++
    const verdict = applyRule(commit, rule, matchers)
    if (verdict.eligible) {
      eligible.push({ fix: commit.id, base: commit.parents[0]!, date: commit.date, subject: commit.subject, roles: verdict.roles })
    } else rejected.push({ fix: commit.id, date: commit.date, subject: commit.subject, reason: verdict.reason })
  }
  return { scanned: commits.length, matched, eligible, rejected }
}

/**
 * The roles of a fix's changed paths, read from the repository (for a
 * candidate from a candidates file, which keeps only its gold and test files).
 */
export async function commitRoles(git: SimpleGit, base: string, fix: string, rule: HarvestRule): Promise<FileRoles> {
  const output = await git.raw(['diff', '-z', '--no-renames', '--name-status', base, fix, '--'])
  const fields = output.split('\0')
  const changes: ChangedPath[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === '') break
    changes.push({ status: fields[i]!, path: fields[i + 1]! })
  }
  return fileRoles(changes, ruleMatchers(rule))
}
