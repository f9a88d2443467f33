import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { SpecError } from '../errors.ts'

/**
 * Cursor's own protobuf message types, taken from the installed `@cursor/sdk`.
 * The SDK bundles the code `protoc-gen-es` generated for Cursor's `agent.v1`
 * and `aiserver.v1` packages (4 000-odd classes) but exports none of them, and
 * the protocol has no public specification. Each generated class sets its
 * static `typeName` on a subclass of `@bufbuild/protobuf`'s `Message` (an
 * external dependency of the bundle, so the same module instance is ours to
 * reach): a setter put on `Message` for the time the SDK's module loads
 * collects every class by its type name. The scripted model server then reads
 * and writes exactly the bytes the SDK does, with no hand-copied field numbers.
 */

/** What the server needs of a generated message class (`@bufbuild/protobuf` 1.x). */
export interface CursorMessageType {
  new (data?: Record<string, unknown>): CursorMessage
  readonly typeName: string
  fromBinary(bytes: Uint8Array): CursorMessage
}

/** A message of one of those classes. */
export interface CursorMessage {
  toBinary(): Uint8Array
  toJson(options?: { emitDefaultValues?: boolean }): unknown
  readonly [field: string]: unknown
}

/** The message types, by full name (`agent.v1.AgentServerMessage`). */
export interface CursorSchemas {
  /** The SDK's version the types come from. */
  readonly sdkVersion: string
  /** The type named so; throws when the installed SDK has none by that name. */
  type(typeName: string): CursorMessageType
}

const CACHE = Symbol.for('task-outcome.scripted-model.cursor-schemas')
type Cache = { [CACHE]?: CursorSchemas }

/**
 * Thrown when `@cursor/sdk` is not installed or its types cannot be read: a
 * setup to fix before any run (a `SpecError`, `TASK_OUTCOME_SPEC_ERROR`).
 */
export class CursorSchemasUnavailable extends SpecError {
  override readonly name = 'CursorSchemasUnavailable'
}

/**
 * The SDK's message types (loaded once per process: the SDK's module, about a
 * second, runs only on the first Cursor request a server gets).
 */
export function cursorSchemas(): CursorSchemas {
  const cache = globalThis as Cache
  cache[CACHE] ??= loadSchemas()
  return cache[CACHE]
}

function loadSchemas(): CursorSchemas {
  const require = createRequire(import.meta.url)
  let entry: string
  try {
    entry = require.resolve('@cursor/sdk')
  } catch {
    throw new CursorSchemasUnavailable("the scripted model speaks Cursor's protocol with @cursor/sdk's own message types: install it (`npm install --save-dev @cursor/sdk@1.0.31`)")
  }
  const sdkRequire = createRequire(entry)
  const { Message } = sdkRequire('@bufbuild/protobuf') as { Message: object }
  const types = new Map<string, CursorMessageType>()
  Object.defineProperty(Message, 'typeName', {
    configurable: true,
    get: () => undefined,
    set(this: CursorMessageType, typeName: string) {
      types.set(typeName, this)
      Object.defineProperty(this, 'typeName', { value: typeName, writable: true, configurable: true })
    },
  })
  try {
    if (require.cache[entry] !== undefined) {
      throw new CursorSchemasUnavailable('@cursor/sdk was loaded in this process before its message types could be collected')
    }
    sdkRequire(entry)
  } finally {
    Reflect.deleteProperty(Message, 'typeName')
  }
  if (!types.has('agent.v1.AgentServerMessage')) {
    throw new CursorSchemasUnavailable(`@cursor/sdk (${entry}) holds no agent.v1.AgentServerMessage: this version's protocol is not one the scripted model knows`)
  }
  // The package's `exports` hide its package.json: it sits three folders above the CommonJS entry (dist/cjs/index.js).
  const sdkVersion = (JSON.parse(readFileSync(path.resolve(entry, '../../../package.json'), 'utf8')) as { version: string }).version
  return {
    sdkVersion,
    type(typeName) {
      const found = types.get(typeName)
      if (found === undefined) throw new CursorSchemasUnavailable(`@cursor/sdk ${sdkVersion} has no message type ${typeName}`)
      return found
    },
  }
}
