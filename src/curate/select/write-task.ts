import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { OpenRepository } from '../../workspace/repository.ts'
import { goldPatch, readBlob } from '../harvest/candidate.ts'
import { relativePosix, type Candidate } from '../harvest/candidates-file.ts'
import type { HarvestRule } from '../harvest/rule.ts'
import { commitRoles } from '../harvest/scan.ts'
import type { GitFixMetadata } from '../../tasks/metadata.ts'
import type { PromptAllowance } from './front-matter.ts'
import { slugFromSubject } from './slug.ts'
import { sha256 } from '../../shared/sha256.ts'

/** What writing one task folder needs. */
export interface TaskFolderInput {
  /** The task set folder. */
  readonly setDir: string
  /** 1-based position in the draw: the folder's number. */
  readonly index: number
  readonly candidate: Candidate
  /** The prompt's text: becomes `task.md`. */
  readonly prompt: string
  /** The gold module names the prompt's front matter allows, with their reasons (into `metadata.json`). */
  readonly allow?: readonly PromptAllowance[]
  /** Absolute path of the repository (folder or bundle). */
  readonly repo: string
  /** The repository's portable name (into `metadata.json`'s `repository`). */
  readonly repositoryName: string
  readonly repository: OpenRepository
  readonly rule: HarvestRule
  readonly testCommand: string
  /** The candidates file's dependency recipe: its inputs' SHA-256s at the parent go into `metadata.json`'s `dependencies`. */
  readonly dependencies?: { readonly prepare: string; readonly inputs: readonly string[]; readonly mount: string }
}

function readme(name: string, input: TaskFolderInput, metadata: GitFixMetadata): string {
  const { candidate } = input
  const list = (ids: readonly string[]) => ids.map((id) => `- \`${id}\``).join('\n')
  return `# ${name}

Harvested from commit \`${candidate.fix}\` ("${candidate.subject}", ${candidate.date}).
The agent starts from its parent \`${candidate.base}\`, exported as a one-commit repository;
\`task.md\` is the prompt it gets. After it stops, the oracle lays the fix's test files
(\`oracle/\`) over a clean copy of the parent plus the agent's changes to non-test files and runs
\`test_command\`; the task is solved when every FAIL_TO_PASS and PASS_TO_PASS test passes.
\`solution/gold.patch\` is the fix's non-test change (what the \`gold\` agent applies).

Gold files (never named by the prompt): ${metadata.gold_files.map((file) => `\`${file}\``).join(', ')}

FAIL_TO_PASS (${metadata.FAIL_TO_PASS.length}):
${list(metadata.FAIL_TO_PASS)}

PASS_TO_PASS (${metadata.PASS_TO_PASS.length}):
${list(metadata.PASS_TO_PASS)}
`
}

/**
 * Writes one task folder in DESIGN's format: `task.md` (the prompt),
 * `metadata.json`, `oracle/` (the fix's test files by repository path),
 * `solution/gold.patch` and a `README.md`. Returns the folder name
 * `<NNN>-<slug>`.
 */
export async function writeTaskFolder(input: TaskFolderInput): Promise<string> {
  const { candidate, repository } = input
  const id = String(input.index).padStart(3, '0')
  const slug = slugFromSubject(candidate.subject, candidate.fix)
  const name = `${id}-${slug}`
  const dir = path.join(input.setDir, name)
  await mkdir(dir, { recursive: true })
  const dependencies =
    input.dependencies === undefined
      ? undefined
      : {
          prepare: input.dependencies.prepare,
          inputs: Object.fromEntries(await Promise.all(input.dependencies.inputs.map(async (file) => [file, sha256(await readBlob(repository, candidate.base, file))] as const))),
          mount: input.dependencies.mount,
        }
  const metadata: GitFixMetadata = {
    id,
    slug,
    kind: 'git-fix',
    repo: relativePosix(dir, input.repo),
    repository: input.repositoryName,
    base: candidate.base,
    fix: candidate.fix,
    gold_files: candidate.gold_files,
    test_files: candidate.test_files,
    FAIL_TO_PASS: candidate.FAIL_TO_PASS,
    PASS_TO_PASS: candidate.PASS_TO_PASS,
    test_command: input.testCommand,
    ...(dependencies === undefined ? {} : { dependencies }),
    test_globs: [...input.rule.testGlobs],
    subject: candidate.subject,
    fix_date: candidate.date,
    ...(input.allow === undefined || input.allow.length === 0 ? {} : { allow: input.allow.map(({ word, reason }) => ({ word, reason })) }),
  }
  await writeFile(path.join(dir, 'task.md'), input.prompt.endsWith('\n') ? input.prompt : `${input.prompt}\n`)
  await writeFile(path.join(dir, 'metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`)
  for (const file of candidate.test_files) {
    const target = path.join(dir, 'oracle', file)
    await mkdir(path.dirname(target), { recursive: true })
    await writeFile(target, await readBlob(repository, candidate.fix, file))
  }
  const roles = await commitRoles(repository.git, candidate.base, candidate.fix, input.rule)
  await mkdir(path.join(dir, 'solution'), { recursive: true })
  await writeFile(path.join(dir, 'solution', 'gold.patch'), await goldPatch(repository, { base: candidate.base, fix: candidate.fix, roles }))
  await writeFile(path.join(dir, 'README.md'), readme(name, input, metadata))
  return name
}
