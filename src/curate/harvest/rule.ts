import { SpecError } from '../../errors.ts'
import { DEFAULT_SOURCE_GLOBS, DEFAULT_TEST_GLOBS, pathMatcher, TEST_INFRASTRUCTURE_GLOBS, type PathMatcher } from '../../tasks/test-paths.ts'

/**
 * The selection rule: which commits of a history become candidate tasks
 * (the pre-registration's "a commit becomes a candidate task when all of
 * these hold"). The last gate, at least one FAIL_TO_PASS test, needs the
 * tests to run and is applied by the harvest itself.
 */
export interface HarvestRule {
  /** The subject must match (default `/^fix/i`: "starts with fix"). */
  readonly subject: RegExp
  /** Committed on or after this instant (a date means 00:00 UTC), or no limit. */
  readonly since: Date | null
  /** Globs of source files; the fix must change 1..maxSourceFiles of them. */
  readonly sourceGlobs: readonly string[]
  /** Globs of test files; the fix must change (add or modify) at least one. */
  readonly testGlobs: readonly string[]
  readonly maxSourceFiles: number
}

/** The rule as written in a candidates file (and accepted on the command line). */
export interface HarvestRuleSpec {
  readonly subject?: string
  readonly since?: string | null
  readonly source?: readonly string[]
  readonly tests?: readonly string[]
  readonly maxSourceFiles?: number
}

/** The default subject pattern: the subject starts with "fix", in any case. */
export const DEFAULT_SUBJECT = '^fix'

/** Builds a rule from its written form, with the defaults, naming the option that is wrong. */
export function buildRule(spec: HarvestRuleSpec = {}): HarvestRule {
  let subject: RegExp
  try {
    subject = new RegExp(spec.subject ?? DEFAULT_SUBJECT, 'i')
  } catch (error) {
    throw new SpecError(`--subject: "${spec.subject}" is not a valid regular expression: ${(error as Error).message}`)
  }
  let since: Date | null = null
  if (spec.since !== undefined && spec.since !== null && spec.since !== '') {
    since = new Date(/^\d{4}-\d{2}-\d{2}$/.test(spec.since) ? `${spec.since}T00:00:00Z` : spec.since)
    if (Number.isNaN(since.getTime())) throw new SpecError(`--since: "${spec.since}" is not a date (use YYYY-MM-DD or an ISO 8601 time)`)
  }
  const maxSourceFiles = spec.maxSourceFiles ?? 3
  if (!Number.isInteger(maxSourceFiles) || maxSourceFiles < 1) {
    throw new SpecError(`--max-source-files: must be a whole number of at least 1, got ${spec.maxSourceFiles}`)
  }
  return {
    subject,
    since,
    sourceGlobs: spec.source !== undefined && spec.source.length > 0 ? [...spec.source] : [...DEFAULT_SOURCE_GLOBS],
    testGlobs: spec.tests !== undefined && spec.tests.length > 0 ? [...spec.tests] : [...DEFAULT_TEST_GLOBS],
    maxSourceFiles,
  }
}

/** One changed path of a commit, with git's status letter (A, M, D, T…). */
export interface ChangedPath {
  readonly status: string
  readonly path: string
}

/** A commit's changed paths sorted into the roles the rule and the oracle give them. */
export interface FileRoles {
  /** Test files the fix adds or modifies, plus changed test infrastructure: these go to `oracle/`. */
  readonly testFiles: string[]
  /** Test files the fix deletes (not part of the oracle). */
  readonly deletedTests: string[]
  /** Changed source files that are not tests: the gold files. */
  readonly sourceFiles: string[]
  /** Every changed path that is not on the test side: what the gold patch holds. */
  readonly goldPaths: string[]
}

/** Compiled globs of a rule. */
export interface RuleMatchers {
  readonly source: PathMatcher
  readonly tests: PathMatcher
  readonly infrastructure: PathMatcher
}

/** Compiles a rule's globs once. */
export function ruleMatchers(rule: HarvestRule): RuleMatchers {
  return { source: pathMatcher(rule.sourceGlobs), tests: pathMatcher(rule.testGlobs), infrastructure: pathMatcher(TEST_INFRASTRUCTURE_GLOBS) }
}

/**
 * Sorts a commit's changes: test files and test infrastructure (conftest, a
 * test folder's helpers and fixtures) are the oracle's side, applied only
 * after the agent stops; everything else is the fix (the gold patch), and the
 * source files among it are the gold files.
 */
export function fileRoles(changes: readonly ChangedPath[], matchers: RuleMatchers): FileRoles {
  const roles: FileRoles = { testFiles: [], deletedTests: [], sourceFiles: [], goldPaths: [] }
  for (const change of changes) {
    const onTestSide = matchers.tests(change.path) || matchers.infrastructure(change.path)
    if (onTestSide) {
      if (change.status.startsWith('D')) roles.deletedTests.push(change.path)
      else roles.testFiles.push(change.path)
    } else {
      roles.goldPaths.push(change.path)
      if (matchers.source(change.path)) roles.sourceFiles.push(change.path)
    }
  }
  for (const list of Object.values(roles) as string[][]) list.sort()
  return roles
}

/** A commit as the scan reads it. */
export interface ScannedCommit {
  readonly id: string
  readonly parents: readonly string[]
  /** Committer date, ISO 8601 with its offset. */
  readonly date: string
  readonly subject: string
  readonly changes: readonly ChangedPath[]
}

/** Why a commit whose subject matched is not a candidate, or its roles when it is. */
export type RuleVerdict = { readonly eligible: true; readonly roles: FileRoles } | { readonly eligible: false; readonly reason: string }

/**
 * Applies the rule's file and date gates to a commit whose subject matched:
 * committed on or after `since`, a parent to start from, 1..max changed
 * source files, and at least one added or modified test file.
 */
export function applyRule(commit: ScannedCommit, rule: HarvestRule, matchers: RuleMatchers): RuleVerdict {
  if (rule.since !== null && new Date(commit.date).getTime() < rule.since.getTime()) {
    return { eligible: false, reason: `committed ${commit.date}, before ${rule.since.toISOString()} (--since)` }
  }
  if (commit.parents.length === 0) return { eligible: false, reason: 'the root commit has no parent to start from' }
  if (commit.parents.length > 1) return { eligible: false, reason: 'a merge commit has no single parent to start from' }
  const roles = fileRoles(commit.changes, matchers)
  const sources = roles.sourceFiles.length
  if (sources === 0) return { eligible: false, reason: `changes no source file (the rule needs 1 to ${rule.maxSourceFiles})` }
  if (sources > rule.maxSourceFiles) {
    return { eligible: false, reason: `changes ${sources} source files (the rule allows at most ${rule.maxSourceFiles}): ${roles.sourceFiles.join(', ')}` }
  }
  if (roles.testFiles.filter((file) => matchers.tests(file)).length === 0) {
    return { eligible: false, reason: "changes no test file (the oracle is the fix's own tests)" }
  }
  return { eligible: true, roles }
}
