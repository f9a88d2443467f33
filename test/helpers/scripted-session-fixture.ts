import { afterEach, beforeEach } from 'vitest'
import { startScriptedModel, type ProtocolHandler, type ScriptedModelServer } from '../../src/scripted-model/index.ts'
import type { FaultRuleInput } from '../../src/scripted-model/faults.ts'
import { GREET_TASK, makeRunFolders, type RunFolders } from './scripted-session.ts'

/**
 * What each test of a real agent CLI against the scripted model needs, made
 * before each test and removed after it: fresh run folders and, once the test
 * starts one, a scripted model server for `GREET_TASK` speaking the CLI's
 * protocol.
 */
export class ScriptedSessionFixture {
  readonly #prefix: string
  readonly #handler: ProtocolHandler
  #folders: RunFolders | undefined
  #server: ScriptedModelServer | undefined

  constructor(prefix: string, handler: ProtocolHandler) {
    this.#prefix = prefix
    this.#handler = handler
    beforeEach(async () => {
      this.#folders = await makeRunFolders(this.#prefix)
    })
    afterEach(async () => {
      await this.#server?.close()
      this.#server = undefined
      await this.#folders?.cleanup()
      this.#folders = undefined
    })
  }

  /** This test's run folders. */
  get folders(): RunFolders {
    if (this.#folders === undefined) throw new Error('ScriptedSessionFixture: the folders exist only inside a test')
    return this.#folders
  }

  /** Starts this test's scripted model server, seeded, with the given faults and latency per answer. */
  async start(seed: number, faults: FaultRuleInput[] = [], latencyMs = 0): Promise<ScriptedModelServer> {
    this.#server = await startScriptedModel({ task: GREET_TASK, seed, workspace: this.folders.workspace, handlers: [this.#handler], faults, latencyMs })
    return this.#server
  }
}
