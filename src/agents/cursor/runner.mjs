// @ts-check
/**
 * The Cursor runner: runs one local Cursor agent session with `@cursor/sdk`
 * in a process of its own (its own process group, killed whole at the
 * harness's timeout), so the SDK's failures (an unhandled rejection when the
 * key is missing, a native crash) end this process and never the harness.
 *
 * Input, on stdin: `{"prompt", "model", "cwd", "settingSources", "storeDir"}`;
 * the API key comes from `CURSOR_API_KEY`, the backend from
 * `CURSOR_BACKEND_URL` (the SDK reads both). Output, on stdout: one JSON
 * object per line, `{"tag", "obj"}`, the format of the captured
 * `cursor-sdk-*.jsonl`: `created`, `delta` (each `onDelta` update),
 * `step`, `sent`, `wait` (the run's result), `error`, `unhandledRejection`,
 * `uncaughtException`. Plain JavaScript so Node runs it without a loader.
 */
import { Agent, JsonlLocalAgentStore } from '@cursor/sdk'

/** @param {string} tag @param {unknown} obj */
function emit(tag, obj) {
  process.stdout.write(`${JSON.stringify({ tag, obj })}\n`)
}

/** @param {unknown} error */
function describe(error) {
  if (error === null || typeof error !== 'object') return { message: String(error) }
  const record = /** @type {Record<string, unknown>} */ (error)
  return {
    name: record.name,
    ctor: record.constructor?.name,
    message: record.message,
    code: record.code,
    isRetryable: record.isRetryable,
  }
}

process.on('unhandledRejection', (error) => emit('unhandledRejection', describe(error)))
process.on('uncaughtException', (error) => {
  emit('uncaughtException', describe(error))
  process.exit(70)
})

async function readStdin() {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  return text
}

const config = JSON.parse(await readStdin())
/** @type {import('@cursor/sdk').SDKAgent | undefined} */
let agent
try {
  agent = await Agent.create({
    model: { id: config.model },
    local: { cwd: config.cwd, settingSources: config.settingSources, store: new JsonlLocalAgentStore(config.storeDir) },
  })
  emit('created', { agentId: agent.agentId, model: agent.model })
  const run = await agent.send(config.prompt, {
    onDelta: ({ update }) => emit('delta', update),
    onStep: ({ step }) => emit('step', step),
  })
  emit('sent', { id: run.id, status: run.status })
  emit('wait', await run.wait())
} catch (error) {
  emit('error', describe(error))
} finally {
  try {
    agent?.close()
  } catch {
    // closing a failed agent may throw; the session is over either way
  }
}
// Give rejections raised while closing a chance to be reported, then end.
setTimeout(() => process.exit(0), 50)
