import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { SpecError, type Problem } from '../errors.ts'
import { canonicalJson, sha256 } from '../experiment/hash.ts'
import type { ArmSpec, SkillsSpec } from '../experiment/schema.ts'
import type { Task } from '../tasks/task.ts'

/** One skill of a library: a folder holding `SKILL.md` and its files. */
export interface Skill {
  readonly name: string
  /** Absolute folder of the skill. */
  readonly dir: string
  /** Every file of the skill (absolute, sorted). */
  readonly files: readonly string[]
  /** SHA-256 over the skill's files (paths and contents): what a record carries. */
  readonly sha256: string
}

/** A skill library by skill name. */
export type SkillLibrary = ReadonlyMap<string, Skill>

/** The folder each agent reads project skills from. */
const AGENT_SKILLS_DIR: Readonly<Record<string, string>> = {
  'claude-code': '.claude/skills',
  cursor: '.cursor/skills',
  codex: '.codex/skills',
  gemini: '.gemini/skills',
}

/** Where skills go in the workspace for an agent kind (an experiment's `skills.dir` wins). */
export function skillsDirFor(agentKind: string, spec: SkillsSpec): string {
  return spec.dir ?? AGENT_SKILLS_DIR[agentKind] ?? '.skills'
}

/** Loads a skill library: every sub-folder holding a SKILL.md, with its files hashed. */
export async function loadSkillLibrary(libraryDir: string): Promise<SkillLibrary> {
  if (!existsSync(libraryDir)) throw new SpecError(`skills.library: ${libraryDir} does not exist; it should hold <name>/SKILL.md folders`)
  const library = new Map<string, Skill>()
  for (const entry of (await readdir(libraryDir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const dir = path.join(libraryDir, entry.name)
    if (!entry.isDirectory() || !existsSync(path.join(dir, 'SKILL.md'))) continue
    const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((file) => file.isFile())
      .map((file) => path.join(file.parentPath, file.name))
      .sort()
    const contents = await Promise.all(files.map(async (file) => [path.relative(dir, file), sha256(await readFile(file))]))
    library.set(entry.name, { name: entry.name, dir, files, sha256: sha256(canonicalJson(Object.fromEntries(contents))) })
  }
  return library
}

/** Whether an arm runs on a task (conditions skip tasks of the other kind). */
export function armAppliesTo(arm: ArmSpec, task: Task): boolean {
  if (arm.tasks === 'all') return true
  const negativeControl = task.kind === 'folder' && task.metadata.target_skill === 'none'
  return arm.tasks === 'negative-control' ? negativeControl : task.kind === 'folder' && !negativeControl
}

/**
 * The skills an arm gives a task, by name, resolving `target`, `irrelevant`,
 * `related`, `unrelated` and `all`. Problems (an unknown skill, a missing
 * related skill) are collected with the file and field to fix.
 */
export function resolveArmSkills(arm: string, armSpec: ArmSpec, task: Task, spec: SkillsSpec, library: SkillLibrary, experimentFile: string, problems: Problem[]): string[] {
  if (armSpec.skills === undefined) return []
  const metadataFile = path.join(task.dir, 'metadata.json')
  if (task.kind !== 'folder') {
    problems.push({ file: metadataFile, field: 'kind', message: `skill experiments run folder tasks (arm ${arm})` })
    return []
  }
  const { target_skill: target, irrelevant_skill: irrelevant } = task.metadata
  const names: string[] = []
  for (const token of armSpec.skills.include) {
    if (token === 'all') names.push(...library.keys())
    else if (token === 'target') names.push(target)
    else if (token === 'irrelevant') names.push(irrelevant)
    else if (token === 'related') {
      const related = spec.related[target]
      if (related === undefined)
        problems.push({ file: experimentFile, field: `skills.related.${target}`, message: `name the skill related to "${target}" (condition ${arm}, task ${task.id})` })
      else names.push(related)
    } else if (token === 'unrelated') names.push(spec.unrelated[target] ?? irrelevant)
    else names.push(token)
  }
  const unique = [...new Set(names)]
  for (const name of unique) {
    if (name === 'none' || !library.has(name)) {
      const field = name === target ? 'target_skill' : name === irrelevant ? 'irrelevant_skill' : undefined
      problems.push({
        file: field === undefined ? experimentFile : metadataFile,
        field: field ?? `arms.${arm}.skills`,
        message: `skill "${name}" is not in the library (${[...library.keys()].join(', ') || 'empty'}) — needed by condition ${arm}`,
      })
    }
  }
  return unique.filter((name) => library.has(name)).sort()
}

/** Loads libraries once per process: every run of a worker reads the same library. */
const libraries = new Map<string, Promise<SkillLibrary>>()

/** The skill library at `libraryDir`, loaded once per process. */
export function cachedSkillLibrary(libraryDir: string): Promise<SkillLibrary> {
  let library = libraries.get(libraryDir)
  if (library === undefined) {
    library = loadSkillLibrary(libraryDir)
    libraries.set(libraryDir, library)
  }
  return library
}

/** Copies the named skills into the workspace's skills folder; returns each skill's SHA-256 by name. */
export async function installSkills(workspace: string, skillsDir: string, names: readonly string[], library: SkillLibrary): Promise<Record<string, string>> {
  const installed: Record<string, string> = {}
  const target = path.join(workspace, skillsDir)
  if (names.length > 0) await mkdir(target, { recursive: true })
  for (const name of names) {
    const skill = library.get(name)
    if (skill === undefined) throw new SpecError(`skill "${name}" is not in the library`)
    await cp(skill.dir, path.join(target, name), { recursive: true })
    installed[name] = skill.sha256
  }
  return installed
}
