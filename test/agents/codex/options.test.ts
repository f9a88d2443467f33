import { describe, expect, it } from 'vitest'
import { CodexAgent, codexConfigArgs } from '../../../src/agents/codex/agent.ts'
import { CodexOptionsSchema } from '../../../src/agents/codex/options.ts'
import { SpecError } from '../../../src/errors.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'

const spec = (extra: Record<string, unknown>) => AgentSpecSchema.parse({ kind: 'codex', model: 'gpt-5.5', ...extra })

describe('codex options', () => {
  it('define a responses provider for baseUrl, with its key variable and retries', () => {
    const options = CodexOptionsSchema.parse({ baseUrl: 'http://127.0.0.1:9/v1', envKey: 'MY_KEY', requestMaxRetries: 0, config: { 'features.web_search': 'false' } })
    expect(codexConfigArgs(options)).toEqual([
      '-c',
      'model_provider="task-outcome"',
      '-c',
      'model_providers.task-outcome.name="task-outcome provider"',
      '-c',
      'model_providers.task-outcome.base_url="http://127.0.0.1:9/v1"',
      '-c',
      'model_providers.task-outcome.env_key="MY_KEY"',
      '-c',
      'model_providers.task-outcome.wire_api="responses"',
      '-c',
      'model_providers.task-outcome.supports_websockets=false',
      '-c',
      'model_providers.task-outcome.request_max_retries=0',
      '-c',
      'features.web_search=false',
    ])
  })

  it('run codex exec with --json, the sandbox, the model and the prompt after --', () => {
    const args = new CodexAgent(spec({ args: ['--enable', 'x'] })).execArgs('-fix it')
    expect(args.slice(0, 7)).toEqual(['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '-m', 'gpt-5.5'])
    expect(args.slice(-4)).toEqual(['--enable', 'x', '--', '-fix it'])
  })

  it("leave Codex's own sandbox off inside the harness's sandbox (that bubblewrap is the wall) unless the options name one", () => {
    expect(new CodexAgent(spec({})).execArgs('x', undefined, true).slice(3, 5)).toEqual(['--sandbox', 'danger-full-access'])
    expect(new CodexAgent(spec({})).execArgs('x', undefined, false).slice(3, 5)).toEqual(['--sandbox', 'workspace-write'])
    expect(new CodexAgent(spec({ options: { sandbox: 'read-only' } })).execArgs('x', undefined, true).slice(3, 5)).toEqual(['--sandbox', 'read-only'])
  })

  it('are checked before any run, naming the field', () => {
    expect(() => new CodexAgent(spec({ options: { baseURL: 'x' } }))).toThrow(/agent\.options\.baseURL: unknown field/)
    expect(() => new CodexAgent(spec({ options: { sandbox: 'none' } }))).toThrow(/agent\.options\.sandbox/)
    expect(() => new CodexAgent(AgentSpecSchema.parse({ kind: 'codex' }))).toThrow(SpecError)
    expect(() => new CodexAgent(spec({ model: 'my-finetune' }))).toThrow(/no price.*priceModel/)
    expect(() => new CodexAgent(spec({ model: 'my-finetune', options: { priceModel: 'gpt-5' } }))).not.toThrow()
  })

  it('a binary that does not run is a SpecError naming it, before any run', async () => {
    await expect(new CodexAgent(spec({ bin: '/bin/false' })).version({ PATH: '/usr/bin:/bin' })).rejects.toThrow(SpecError)
    await expect(new CodexAgent(spec({ bin: '/bin/false' })).version({ PATH: '/usr/bin:/bin' })).rejects.toThrow(/\/bin\/false --version` failed \(exit 1\)/)
  })
})
