import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { genaiPricesVersion, pricedAgentVersion } from '../../../src/agents/pricing/version.ts'

describe('the price table version', () => {
  it('is the installed @pydantic/genai-prices version, recorded beside the CLI version', () => {
    const installed = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../../node_modules/@pydantic/genai-prices/package.json'), 'utf8')) as { version: string }
    expect(genaiPricesVersion).toBe(installed.version)
    expect(pricedAgentVersion('codex-cli 0.171.0')).toBe(`codex-cli 0.171.0; genai-prices ${installed.version}`)
  })
})
