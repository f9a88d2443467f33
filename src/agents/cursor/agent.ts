import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { HarnessFailure, SpecError } from '../../errors.ts'
import type { AgentSpec } from '../../experiment/schema.ts'
import { CliAgent, pricedResult, type CliLaunch, type CliSession } from '../cli-agent.ts'
import { parseAdapterOptions } from '../options.ts'
import { modelPrice, type PriceKey } from '../pricing/price.ts'
import { pricedAgentVersion } from '../pricing/version.ts'
import { packageClosure, runProcess, UNSANDBOXED_HOST } from '../../sandbox/index.ts'
import { resolveAgentPackage } from '../packages.ts'
import { loopbackPorts, SCRIPTED_MODEL_KEY } from '../scripted-run.ts'
import type { AgentContext, AgentRunRequest, AgentRunResult } from '../types.ts'
import { classifyCursorSession, CURSOR_MIN_NODE, nodeTooOld } from './classify.ts'
import { CursorOptionsSchema, type CursorOptions } from './options.ts'
import { readCursorStream } from './stream.ts'

const RUNNER = path.join(import.meta.dirname, 'runner.mjs')

/** The installed `@cursor/sdk`'s folder and version. */
function cursorSdk(): { dir: string; version: string } {
  // The package's `exports` hide its package.json; it sits two folders above the ESM entry.
  let dir = path.dirname(resolveAgentPackage('cursor'))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === '@cursor/sdk' && pkg.version !== undefined) return { dir, version: pkg.version }
    } catch {
      // keep walking up
    }
    if (path.dirname(dir) === dir) throw new SpecError('cannot find the version of @cursor/sdk: install it (`npm install @cursor/sdk`) to run the cursor agent')
    dir = path.dirname(dir)
  }
}

/** The installed `@cursor/sdk` version. */
export function cursorSdkVersion(): string {
  return cursorSdk().version
}

/**
 * `cursor`: a local Cursor agent through `@cursor/sdk`
 * (`Agent.create({model:{id}, local:{cwd, settingSources}})`, `agent.send`,
 * `run.wait()`), priced from the `turn-ended` usage with
 * `@pydantic/genai-prices`. The SDK runs in a child process (`runner.mjs`)
 * in its own process group: its unhandled rejection (no key) or a native
 * crash ends that process, never the harness, and the timeout kills it whole.
 * Runs keep the SDK's local store in a scratch folder (JSONL, which works
 * without `node:sqlite`).
 *
 * Spec: `agent.model` is required (Cursor's model id; when the price table
 * names it differently set `options.priceModel`). Options: see
 * `CursorOptionsSchema`. With `options.scriptedModel` (or `backendUrl` at a
 * scripted model server) the server speaks Cursor's agent backend
 * (`src/scripted-model/cursor.ts`) and a whole session runs with no account
 * and no network: the model is scripted, the SDK's tools are real.
 */
export class CursorAgent extends CliAgent<CursorOptions, { readonly nodeVersion: string }> {
  readonly kind = 'cursor'
  readonly #model: string
  readonly #price: PriceKey

  constructor(spec: AgentSpec, context: Pick<AgentContext, 'experimentDir'> = { experimentDir: process.cwd() }) {
    const options = parseAdapterOptions('cursor', CursorOptionsSchema, spec)
    super({ ...spec, bin: undefined }, context, () => ({ file: options.node ?? process.execPath, args: [RUNNER] }), options)
    ;({ model: this.#model, price: this.#price } = modelPrice(
      'cursor',
      spec.model,
      options,
      ': the Cursor model id the session runs (and is priced as, unless options.priceModel says otherwise)',
    ))
  }

  async #nodeVersion(env: Readonly<Record<string, string>>): Promise<string> {
    if (this.options.node === undefined) return process.versions.node
    const result = await runProcess({ file: this.options.node, args: ['--version'] }, { cwd: process.cwd(), env, timeoutMs: 30_000, sandbox: UNSANDBOXED_HOST })
    if (result.exitCode !== 0) throw new SpecError(`agent.options.node "${this.options.node}" does not run: ${result.stderr.trim().slice(-300)}`)
    return result.stdout.trim().replace(/^v/, '')
  }

  /** The SDK is a library, not a CLI: its version is the installed package's. */
  protected readVersion(): string {
    return pricedAgentVersion(`@cursor/sdk ${cursorSdkVersion()}`)
  }

  /**
   * `@cursor/sdk <version>` and the price table's. Refuses a Node older than
   * the SDK needs before any run: there its local agent crashes.
   */
  override async version(env: Readonly<Record<string, string>>): Promise<string> {
    const node = await this.#nodeVersion(env)
    if (nodeTooOld(node)) {
      throw new SpecError(
        `the cursor agent needs Node >= ${CURSOR_MIN_NODE.join('.')} (the oldest Node tested to run @cursor/sdk's local sessions; on Node ${node} its native tree-sitter binding segfaults when a local session starts): set agent.options.node to a newer Node executable`,
      )
    }
    return this.readVersion()
  }

  /**
   * The runner gets the session on stdin; the SDK's local store goes to a
   * scratch folder, removed after the run. With the scripted model its URL is
   * the backend and its key the API key (unless the run's environment has one).
   */
  /**
   * Not metered: `@cursor/sdk` takes a backend URL (`CURSOR_BACKEND_URL`), but
   * that backend is Cursor's own agent service, speaking protobuf over Connect
   * with no provider usage fields the gateway could read; the SDK's own
   * usage report stands (`metered: null`).
   */
  protected override get meterable(): boolean {
    return false
  }

  protected async launch(request: AgentRunRequest, scriptedUrl: string | undefined): Promise<CliLaunch<{ readonly nodeVersion: string }>> {
    const backendUrl = scriptedUrl ?? this.options.backendUrl
    const key = request.env[this.options.apiKeyEnv] ?? (scriptedUrl === undefined ? undefined : SCRIPTED_MODEL_KEY)
    if (key === undefined || key === '') {
      throw new HarnessFailure('auth', `cursor: ${this.options.apiKeyEnv} is not set in the run's environment (pass it with the experiment's env.pass): no Cursor API key`)
    }
    const env: Record<string, string> = { ...request.env, CURSOR_API_KEY: key }
    if (backendUrl !== undefined) env.CURSOR_BACKEND_URL = backendUrl
    const nodeVersion = await this.#nodeVersion(request.env)
    const storeDir = await mkdtemp(path.join(request.sandbox === undefined ? os.tmpdir() : (env.HOME ?? os.tmpdir()), 'cursor-store-'))
    return {
      args: [],
      env,
      input: JSON.stringify({ prompt: request.prompt, model: this.#model, cwd: request.workspace, settingSources: this.options.settingSources, storeDir }),
      killGraceMs: this.options.killGraceSeconds * 1000,
      loopbackPorts: loopbackPorts(backendUrl),
      ...(request.sandbox === undefined ? {} : { readOnly: packageClosure(cursorSdk().dir) }),
      context: { nodeVersion },
      cleanup: () => rm(storeDir, { recursive: true, force: true }),
    }
  }

  protected async read(session: CliSession<{ readonly nodeVersion: string }>): Promise<AgentRunResult> {
    const stream = readCursorStream(session.end.stdout.split('\n'))
    return pricedResult(session, {
      ...classifyCursorSession(stream, { ...session.end, nodeVersion: session.context.nodeVersion }),
      tokens: stream.tokens,
      requests: [],
      price: this.#price,
      turns: stream.turns,
      model: stream.model ?? this.#model,
      toolCalls: stream.toolCalls,
      toolCallsBeforeFirstEdit: stream.toolCallsBeforeFirstEdit,
    })
  }
}
