import { describe, expect, test } from 'vitest'
import { estimateTokens, runPathCharacters, UsageMeter } from '../../src/scripted-model/usage.ts'

describe('usage accounting', () => {
  test('tokens are proportional to characters', () => {
    expect(estimateTokens('')).toBe(0)
    expect(estimateTokens('abcd')).toBe(1)
    expect(estimateTokens('x'.repeat(4000))).toBe(1000)
  })

  test('a cacheable prefix is written once, then read; the tail is plain input', () => {
    const meter = new UsageMeter()
    expect(meter.measure({ cacheKey: 'a', cacheableTokens: 1000, uncachedTokens: 5 }, 20)).toEqual({ inputTokens: 5, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 1000 })
    // The conversation grew by 300 tokens: 1000 read from cache, 300 written.
    expect(meter.measure({ cacheKey: 'a', cacheableTokens: 1300, uncachedTokens: 5 }, 30)).toEqual({
      inputTokens: 5,
      outputTokens: 30,
      cacheReadTokens: 1000,
      cacheWriteTokens: 300,
    })
    // Another conversation (a side request with another system prompt) has its own cache.
    expect(meter.measure({ cacheKey: 'b', cacheableTokens: 0, uncachedTokens: 50 }, 10)).toEqual({ inputTokens: 50, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 })
    expect(meter.total).toEqual({ inputTokens: 60, outputTokens: 60, cacheReadTokens: 1000, cacheWriteTokens: 1300 })
  })

  test('a longer session costs more: every turn re-reads the growing prefix', () => {
    const session = (turns: number) => {
      const meter = new UsageMeter()
      for (let turn = 0; turn < turns; turn++) meter.measure({ cacheKey: 'k', cacheableTokens: 20_000 + turn * 500, uncachedTokens: 3 }, 60)
      return meter.total
    }
    expect(session(8).cacheReadTokens).toBeGreaterThan(session(4).cacheReadTokens * 2)
  })

  test('zero mode reports nothing (for the "$0 success" failure)', () => {
    const meter = new UsageMeter({ zero: true })
    expect(meter.measure({ cacheKey: 'a', cacheableTokens: 1000, uncachedTokens: 5 }, 20)).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })
  })

  test("the run's workspace and HOME count as fixed stand-ins, however long the folders the harness chose", () => {
    const said = (workspace: string, home: string) =>
      `Primary working directory: ${workspace}\nRead ${workspace}/src/a.js\nmemory: ${home}/.claude/projects/${workspace.replace(/[^A-Za-z0-9]/g, '-')}/memory/`
    const short = runPathCharacters({ workspace: '/w/001-x-ab12CD/ws', home: '/w/run-XY34zz/home' })
    const long = runPathCharacters({ workspace: '/a/much/longer/root/for/shard-2/001-x-Qq99rr/ws/', home: '/a/much/longer/root/for/shard-2/run-Pp00kk/home' })
    const first = said('/w/001-x-ab12CD/ws', '/w/run-XY34zz/home')
    const second = said('/a/much/longer/root/for/shard-2/001-x-Qq99rr/ws', '/a/much/longer/root/for/shard-2/run-Pp00kk/home')
    expect(second.length).toBeGreaterThan(first.length + 50)
    expect(long(second)).toBe(short(first))
    expect(short(first)).toBe(said('/workspace', '/home/agent').length)
    expect(estimateTokens(second, long)).toBe(estimateTokens(first, short))
  })

  test("text without the run's folders, or a run with none named, counts its plain length", () => {
    expect(runPathCharacters({ workspace: '/w/ws' })('no paths here')).toBe('no paths here'.length)
    expect(runPathCharacters({})('/w/ws/a.js')).toBe('/w/ws/a.js'.length)
  })
})
