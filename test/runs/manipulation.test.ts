import { describe, expect, test } from 'vitest'
import type { AgentRunResult } from '../../src/agents/types.ts'
import { manipulationRecord } from '../../src/runs/manipulation.ts'

const session = (parts: Partial<AgentRunResult>): AgentRunResult => ({
  stop: 'completed',
  costUsd: 0.01,
  costSource: 'agent',
  tokens: null,
  turns: 1,
  toolCalls: 0,
  toolCallsBeforeFirstEdit: null,
  wallMs: 1,
  model: null,
  transcriptSha256: null,
  hooksFired: null,
  ...parts,
})
const counted = (byEvent: Record<string, number>, foreign: string[] = []) => ({ byEvent, foreign })

describe("the manipulation record: the CLI's hook_response lines beside the harness's count of hook starts", () => {
  test('agreeing counts are recorded side by side, without a flag', () => {
    const result = manipulationRecord(
      ['UserPromptSubmit'],
      session({ hooksFired: { UserPromptSubmit: 1, PostToolUse: 2 }, hookStarts: counted({ UserPromptSubmit: 1, PostToolUse: 2 }) }),
    )
    expect(result).toEqual({
      manipulation: { hookPromptsRecorded: 1, hookEditsRecorded: 2, hooksReported: { UserPromptSubmit: 1, PostToolUse: 2 }, hookStarts: { UserPromptSubmit: 1, PostToolUse: 2 } },
      flags: [],
    })
  })

  test('each event whose counts differ is named in one flag, either way round', () => {
    const { flags } = manipulationRecord([], session({ hooksFired: { PostToolUse: 2 }, hookStarts: counted({ PostToolUse: 0, PreToolUse: 1 }) }))
    expect(flags).toEqual([
      "hook-count-disagrees: PostToolUse: the CLI printed 2, the harness counted 0; PreToolUse: the CLI printed 0, the harness counted 1 (the starts on the harness's hook channel and the CLI's hook_response lines must agree: something in the session wrote one of them)",
    ])
  })

  test('SessionEnd, which the CLI never prints, is counted by the harness alone and never disagrees', () => {
    const result = manipulationRecord(['SessionEnd'], session({ hooksFired: {}, hookStarts: counted({ SessionEnd: 1 }) }))
    expect(result.flags).toEqual([])
    expect(result.manipulation?.hookStarts).toEqual({ SessionEnd: 1 })
  })

  test('lines on the channel that start no wrapped hook are flagged, quoted', () => {
    const { flags } = manipulationRecord([], session({ hooksFired: { Stop: 1 }, hookStarts: counted({ Stop: 1 }, ['start 99']) }))
    expect(flags).toEqual([expect.stringMatching(/^hook-count-disagrees: 1 line\(s\) on the harness's hook channel were no start of a wrapped hook .*"start 99"$/)])
  })

  test('a session the timeout killed may have started hooks it never reported: not flagged', () => {
    expect(manipulationRecord([], session({ stop: 'timeout', hooksFired: {}, hookStarts: counted({ Stop: 1 }) })).flags).toEqual([])
  })

  test("without the harness's count (an agent whose hooks it does not wrap) the record holds the CLI's alone", () => {
    expect(manipulationRecord(['UserPromptSubmit'], session({ hooksFired: { UserPromptSubmit: 1 } }))).toEqual({
      manipulation: { hookPromptsRecorded: 1, hookEditsRecorded: 0, hooksReported: { UserPromptSubmit: 1 } },
      flags: [],
    })
    expect(manipulationRecord([], session({ hooksFired: { UserPromptSubmit: 1 } }))).toEqual({ manipulation: null, flags: [] })
  })
})
