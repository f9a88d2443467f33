import { mkdtemp, readFile, rm, mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { GeminiAgent, geminiRunSettings } from '../../../src/agents/gemini/agent.ts'
import { GeminiOptionsSchema } from '../../../src/agents/gemini/options.ts'
import { writeRunSettings } from '../../../src/agents/gemini/settings.ts'
import { HarnessFailure } from '../../../src/errors.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'

const spec = (extra: Record<string, unknown> = {}) => AgentSpecSchema.parse({ kind: 'gemini', model: 'gemini-2.5-flash', ...extra })

describe("the gemini run's settings", () => {
  it('select API-key auth with a base URL (the CLI refuses its "gateway" auth with -p), and map the turn limit', () => {
    const options = GeminiOptionsSchema.parse({ baseUrl: 'http://127.0.0.1:9', maxAttempts: 1, settings: { general: { vimMode: true } } })
    expect(geminiRunSettings(spec({ maxTurns: 7 }), options)).toEqual({
      privacy: { usageStatisticsEnabled: false },
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { maxAttempts: 1, vimMode: true },
      model: { maxSessionTurns: 7 },
    })
  })

  it("merge over the arm's own ~/.gemini/settings.json, keeping its hooks", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'gemini-settings-'))
    try {
      await mkdir(path.join(home, '.gemini'))
      await writeFile(path.join(home, '.gemini/settings.json'), JSON.stringify({ hooks: { AfterTool: [{ command: 'x' }] }, general: { vimMode: true } }))
      const file = await writeRunSettings(home, { general: { maxAttempts: 1 } })
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ hooks: { AfterTool: [{ command: 'x' }] }, general: { vimMode: true, maxAttempts: 1 } })
      await writeFile(file, '{ not json')
      await expect(writeRunSettings(home, {})).rejects.toThrow(HarnessFailure)
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })

  it('run gemini headless with stream-json, a trusted workspace, yolo approval and the model', () => {
    expect(new GeminiAgent(spec({ args: ['--debug'] })).cliArgs('fix it')).toEqual([
      '-p',
      'fix it',
      '-o',
      'stream-json',
      '--skip-trust',
      '--approval-mode',
      'yolo',
      '-m',
      'gemini-2.5-flash',
      '--debug',
    ])
  })

  it('refuse a spec without a priceable model before any run', () => {
    expect(() => new GeminiAgent(AgentSpecSchema.parse({ kind: 'gemini' }))).toThrow(/needs agent\.model.*"auto"/)
    expect(() => new GeminiAgent(spec({ options: { approvalMode: 'plan' } }))).toThrow(/agent\.options\.approvalMode/)
  })
})
