import { constants } from 'node:fs'
import { lstat, open } from 'node:fs/promises'
import path from 'node:path'
import { HookChannel, type HookStarts } from '../hook-channel.ts'

/**
 * Claude Code's hooks wrapped for the harness's count (`HookChannel`): every
 * `type: "command"` hook in the settings files the CLI reads from the
 * workspace and the run's HOME gets the channel's prefix for the session, and
 * each file is put back as it was when the session ends (unless the session
 * changed it again: then its change stands, as every change of its does).
 * A settings file is only read and written where it is a plain file in a
 * plain folder: the arm's setup can leave a link there, which the harness
 * never follows (it would write the wrapped settings wherever it points).
 */

/** The file's bytes when it is a regular file with one link, in a folder that is no link; else null. Never follows a link. */
async function readPlainFile(file: string): Promise<Buffer | null> {
  const folder = await lstat(path.dirname(file)).catch(() => null)
  if (folder === null || !folder.isDirectory()) return null
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null)
  if (handle === null) return null
  try {
    const stat = await handle.stat()
    return stat.isFile() && stat.nlink === 1 ? await handle.readFile() : null
  } finally {
    await handle.close()
  }
}

/** Writes a file `readPlainFile` read, through no link. */
async function writePlainFile(file: string, content: string | Buffer): Promise<void> {
  const folder = await lstat(path.dirname(file))
  if (!folder.isDirectory()) return
  const handle = await open(file, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const stat = await handle.stat()
    if (!stat.isFile() || stat.nlink !== 1) return
    await handle.truncate(0)
    await handle.write(typeof content === 'string' ? Buffer.from(content) : content, 0, undefined, 0)
  } finally {
    await handle.close()
  }
}

/** One settings file rewritten for the session. */
interface Rewritten {
  readonly file: string
  readonly original: Buffer
  readonly written: string
}

/** The hooks of a session, wrapped. */
export interface WrappedHooks {
  readonly channel: HookChannel
  /** The hook event of each wrapped command, by its index. */
  readonly events: readonly string[]
  /** The harness's count of starts by event (every wrapped event present, 0 when none started) and foreign lines. */
  stop(): Promise<{ readonly starts: Readonly<Record<string, number>>; readonly foreign: readonly string[] }>
  /** Puts each file back (where the session left it as written). */
  restore(): Promise<void>
}

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Every command hook of a parsed settings object, with its event, in file order. */
function commandHooks(settings: Json): { event: string; hook: Json }[] {
  const found: { event: string; hook: Json }[] = []
  if (!isObject(settings.hooks)) return found
  for (const [event, matchers] of Object.entries(settings.hooks)) {
    if (!Array.isArray(matchers)) continue
    for (const matcher of matchers) {
      if (!isObject(matcher) || !Array.isArray(matcher.hooks)) continue
      for (const hook of matcher.hooks) if (isObject(hook) && hook.type === 'command' && typeof hook.command === 'string') found.push({ event, hook })
    }
  }
  return found
}

/**
 * Wraps the command hooks of `files` (those that exist and parse; a file the
 * CLI could not read either is left alone), or returns null when none has any.
 */
export async function wrapClaudeHooks(files: readonly string[]): Promise<WrappedHooks | null> {
  const parsed: { file: string; original: Buffer; settings: Json; hooks: { event: string; hook: Json }[] }[] = []
  for (const file of files) {
    const original = await readPlainFile(file)
    if (original === null) continue
    let settings: unknown
    try {
      settings = JSON.parse(original.toString('utf8'))
    } catch {
      continue
    }
    if (!isObject(settings)) continue
    const hooks = commandHooks(settings)
    if (hooks.length > 0) parsed.push({ file, original, settings, hooks })
  }
  const total = parsed.reduce((sum, entry) => sum + entry.hooks.length, 0)
  if (total === 0) return null
  const channel = await HookChannel.open(total)
  const events: string[] = []
  const rewritten: Rewritten[] = []
  for (const entry of parsed) {
    for (const { event, hook } of entry.hooks) {
      hook.command = channel.commandFor(events.length, hook.command as string)
      events.push(event)
    }
    const written = `${JSON.stringify(entry.settings, null, 2)}\n`
    await writePlainFile(entry.file, written)
    rewritten.push({ file: entry.file, original: entry.original, written })
  }
  return {
    channel,
    events,
    async stop() {
      return startsByEvent(events, await channel.stop())
    },
    async restore() {
      for (const { file, original, written } of rewritten) {
        const now = await readPlainFile(file)
        if (now?.toString('utf8') === written) await writePlainFile(file, original)
      }
    },
  }
}

function startsByEvent(events: readonly string[], counted: HookStarts): { starts: Record<string, number>; foreign: readonly string[] } {
  const starts: Record<string, number> = {}
  for (const [index, event] of events.entries()) starts[event] = (starts[event] ?? 0) + (counted.byIndex.get(index) ?? 0)
  return { starts, foreign: counted.foreign }
}
