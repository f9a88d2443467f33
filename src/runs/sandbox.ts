import type { Experiment } from '../experiment/schema.ts'
import { probeSandbox, sandboxLabel, toolchainMounts, UNSANDBOXED } from '../sandbox/index.ts'
import { templateRoot } from '../workspace/template.ts'

/**
 * `versions.sandbox` for an experiment: the probed sandbox (`bubblewrap
 * 0.8.0`), or `none (UNSANDBOXED)` when its spec says `sandbox: 'none'`.
 * Throws `SandboxUnavailable` (one line naming the package to install) on a
 * machine without a working sandbox: the experiment stops before any run.
 */
export async function experimentSandboxVersion(spec: Pick<Experiment, 'sandbox'>): Promise<string> {
  return spec.sandbox === 'none' ? UNSANDBOXED : sandboxLabel(await probeSandbox())
}

/**
 * What a run's processes see read-only besides the system: the harness's
 * Node, the toolchain folders on the agent's PATH (never one inside the
 * project, the workspaces or the templates: `node_modules/.bin` stays out),
 * and the arm's own PATH folders (its tool, named by the experiment).
 */
export function runReadOnlyMounts(pathVariable: string | undefined, exclude: { projectRoot: string; workspaceRoot: string }, armPath: readonly string[]): string[] {
  return [...toolchainMounts(pathVariable, [exclude.projectRoot, exclude.workspaceRoot, templateRoot()]), ...armPath]
}
