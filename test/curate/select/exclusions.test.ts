import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ProblemsError } from '../../../src/errors.ts'
import { readExclusions } from '../../../src/curate/select/exclusions.ts'

const fixes = [`abcdef01${'1'.repeat(32)}`, `abcdef02${'2'.repeat(32)}`, `9999999${'9'.repeat(33)}`]
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exclusions-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function read(content: unknown) {
  const file = path.join(dir, `${Math.random()}.json`)
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content))
  return readExclusions(file, fixes).catch((error: unknown) => error)
}

describe('exclusions.json', () => {
  it('matches each exclusion to its candidate by commit prefix, keeping the reason and why', async () => {
    const exclusions = await read({ exclusions: [{ commit: 'abcdef01', reason: 'c', why: 'imports a name the fix adds' }] })
    expect(exclusions).toEqual(new Map([[fixes[0], { fix: fixes[0], reason: 'c', why: 'imports a name the fix adds' }]]))
  })

  it('names every bad field: an unknown reason, a missing why, a bad commit, an unknown key', async () => {
    const error = await read({
      exclusions: [
        { commit: 'xyz', reason: 'd', why: 'short' },
        { commit: 'abcdef01', reason: 'a', why: 'a long enough reason', extra: 1 },
      ],
    })
    expect(error).toBeInstanceOf(ProblemsError)
    const fields = (error as ProblemsError).problems.map((p) => p.field)
    expect(fields).toEqual(expect.arrayContaining(['exclusions.0.commit', 'exclusions.0.reason', 'exclusions.0.why', 'exclusions.1.extra']))
  })

  it('refuses a commit that matches no candidate, several, or one already excluded', async () => {
    const error = await read({
      exclusions: [
        { commit: '1234567', reason: 'a', why: 'checks wording only' },
        { commit: 'abcdef0', reason: 'a', why: 'checks wording only' },
        { commit: '9999999', reason: 'b', why: 'cannot be said without the file' },
        { commit: '99999999', reason: 'b', why: 'cannot be said without the file' },
      ],
    })
    expect((error as ProblemsError).problems.map((p) => p.message)).toEqual([
      '"1234567" matches no candidate',
      '"abcdef0" matches 2 candidates: give more digits',
      `${fixes[2]} is excluded twice`,
    ])
  })

  it('says when the file is not JSON', async () => {
    expect(((await read('{ nope')) as ProblemsError).problems[0]?.message).toMatch(/^not valid JSON/)
  })
})
