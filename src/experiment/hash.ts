import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Experiment } from './schema.ts'
import { sha256 } from '../shared/sha256.ts'

/**
 * The pre-registration lock. The spec hash is a SHA-256 over the normalised
 * experiment and every file it depends on (task folders, arm files, skills);
 * each record carries it, and a resume refuses records made under another hash.
 * The manifest keeps the per-file hashes, so a refusal can name what changed.
 */
export interface SpecManifest {
  /** The parsed experiment, minus settings that do not change what is measured. */
  readonly experiment: Record<string, unknown>
  /** SHA-256 of each file, by path relative to the project root (forward slashes). */
  readonly files: Readonly<Record<string, string>>
}

/** JSON with object keys sorted at every depth: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner
    return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  })
}

/** SHA-256, lowercase hex (the shared leaf's, named here too for the spec hash's readers). */
export { sha256 }

/**
 * The experiment as hashed. `maxWorkers` (how fast it runs), `output` (where
 * results go) and `maxBudgetUsd` (when to stop spending) do not change what a
 * run measures, so a resume may change them. The change log is left out too:
 * it records changes, it is not one (spec.json keeps it, and refuses an edit
 * of an entry it has seen); the pre-registration document's path stays in,
 * and its bytes are in the files.
 */
export function normaliseExperiment(spec: Experiment): Record<string, unknown> {
  const { maxWorkers: _maxWorkers, output: _output, maxBudgetUsd: _maxBudgetUsd, preregistration, ...measured } = spec
  const hashed = preregistration?.document === undefined ? measured : { ...measured, preregistration: { document: preregistration.document } }
  return JSON.parse(canonicalJson(hashed)) as Record<string, unknown>
}

/** Hashes files (absolute paths) into a manifest keyed by their path relative to `root`. */
export async function hashFiles(root: string, files: readonly string[]): Promise<Record<string, string>> {
  const entries = await Promise.all(files.map(async (file) => [path.relative(root, file).split(path.sep).join('/'), sha256(await readFile(file))] as const))
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** Builds the manifest of an experiment over the given files. */
export async function buildSpecManifest(spec: Experiment, root: string, files: readonly string[]): Promise<SpecManifest> {
  return { experiment: normaliseExperiment(spec), files: await hashFiles(root, files) }
}

/** The spec hash: SHA-256 of the manifest's canonical JSON. */
export function specSha256(manifest: SpecManifest): string {
  return sha256(canonicalJson(manifest))
}

/**
 * Says what differs between two manifests, one line per change:
 * `experiment field seeds: 3 → 5`, `tasks/x/001-a/verify.sh changed`, `… added`, `… removed`.
 */
export function describeSpecChanges(before: SpecManifest, after: SpecManifest): string[] {
  const changes: string[] = []
  const fields = new Set([...Object.keys(before.experiment), ...Object.keys(after.experiment)])
  for (const field of [...fields].sort()) {
    const was = canonicalJson(before.experiment[field])
    const now = canonicalJson(after.experiment[field])
    if (was !== now) changes.push(`experiment field ${field}: ${was ?? 'absent'} → ${now ?? 'absent'}`)
  }
  const files = new Set([...Object.keys(before.files), ...Object.keys(after.files)])
  for (const file of [...files].sort()) {
    const was = before.files[file]
    const now = after.files[file]
    if (was === now) continue
    changes.push(was === undefined ? `${file} added` : now === undefined ? `${file} removed` : `${file} changed`)
  }
  return changes
}
