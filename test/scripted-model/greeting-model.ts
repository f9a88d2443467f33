import { afterEach } from 'vitest'
import { startScriptedModel, type ScriptedModelServer } from '../../src/scripted-model/index.ts'
import type { FaultRuleInput } from '../../src/scripted-model/faults.ts'
import type { ScriptedTask } from '../../src/scripted-model/types.ts'

/** The one-edit task the protocol tests speak about: a greeting that lacks its exclamation mark. */
export const greetingTask: ScriptedTask = {
  id: '001-x',
  prompt: 'The greeting lacks its exclamation mark.',
  files: ['src/greet.js', 'src/other.js'],
  edits: [{ path: 'src/greet.js', before: 'return `Hello, ${name}`\n', after: 'return `Hello, ${name}!`\n' }],
}

/**
 * A scripted model for `greetingTask` (seed 1, workspace `/srv/ws`, never a
 * wrong edit), started by a test and closed after each test of the file that
 * makes it.
 */
export class GreetingModel {
  #server: ScriptedModelServer | undefined

  constructor() {
    afterEach(() => this.close())
  }

  /** Starts the server, with the given faults. */
  async start(faults: FaultRuleInput[] = []): Promise<ScriptedModelServer> {
    this.#server = await startScriptedModel({ task: greetingTask, seed: 1, workspace: '/srv/ws', faults, policy: { wrongEditRate: 0 } })
    return this.#server
  }

  /** The running server (a test that has not started one is a mistake in the test). */
  get server(): ScriptedModelServer {
    if (this.#server === undefined) throw new Error('GreetingModel: start() the server first')
    return this.#server
  }

  /** Closes the server, if one runs. */
  async close(): Promise<void> {
    await this.#server?.close()
    this.#server = undefined
  }
}
