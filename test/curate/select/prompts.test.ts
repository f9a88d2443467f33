import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ProblemsError } from '../../../src/errors.ts'
import { checkPrompts, findGoldNames, goldFileNames, readPrompts } from '../../../src/curate/select/prompts.ts'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

describe('the gold-file check on prompts', () => {
  it('knows a gold file by its path, file name and module name', () => {
    expect(goldFileNames('src/ranges/parse.js')).toEqual([
      { kind: 'path', name: 'src/ranges/parse.js' },
      { kind: 'file name', name: 'parse.js' },
      { kind: 'module name', name: 'parse' },
    ])
  })

  it('knows an index or __init__ file by its folder, and a Python module by its dotted path', () => {
    expect(goldFileNames('lib/ranges/index.ts').map((n) => n.name)).toEqual(['lib/ranges/index.ts', 'index.ts', 'ranges'])
    expect(goldFileNames('neuralmind/query/cache.py').map((n) => n.name)).toEqual(['neuralmind/query/cache.py', 'cache.py', 'cache', 'neuralmind.query.cache'])
    expect(goldFileNames('neuralmind/query/__init__.py').map((n) => n.name)).toEqual(['neuralmind/query/__init__.py', '__init__.py', 'query', 'neuralmind.query'])
  })

  it('finds each way a prompt names a gold file, with its line', () => {
    const prompt = 'Dates fail.\nLook at src/dates/parse.js\nor parse.js, or just Parse it better.\n'
    expect(findGoldNames(prompt, ['src/dates/parse.js'])).toEqual([
      { goldFile: 'src/dates/parse.js', kind: 'path', name: 'src/dates/parse.js', line: 2 },
      { goldFile: 'src/dates/parse.js', kind: 'file name', name: 'parse.js', line: 2 },
      { goldFile: 'src/dates/parse.js', kind: 'module name', name: 'parse', line: 2 },
    ])
  })

  it('does not count a name inside a longer identifier or word', () => {
    expect(findGoldNames('The parser and parseDate and reparse all work; parse_all too.', ['src/parse.js'])).toEqual([])
    expect(findGoldNames('Calling neuralmind.query.cache_size() is fine', ['neuralmind/query/cache.py'])).toEqual([])
  })

  it('refuses every naming prompt at once, saying which prompt, line, file and name', () => {
    const prompts = [
      { fix: 'a'.repeat(40), file: 'prompts/aaaaaaa.md', text: 'Totals are off in tallyup.\n', allow: [], bodyLineOffset: 0 },
      { fix: 'b'.repeat(40), file: 'prompts/bbbbbbb.md', text: 'Fine words only.\n', allow: [], bodyLineOffset: 0 },
      { fix: 'c'.repeat(40), file: 'prompts/ccccccc.md', text: 'ok\nsee pkg/money.py\n', allow: [], bodyLineOffset: 0 },
    ]
    const gold: Record<string, string[]> = { ['a'.repeat(40)]: ['src/tallyup.js'], ['b'.repeat(40)]: ['src/x.js'], ['c'.repeat(40)]: ['pkg/money.py'] }
    const error = (() => {
      try {
        checkPrompts(prompts, (fix) => gold[fix]!)
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(ProblemsError)
    expect((error as ProblemsError).problems.map((p) => `${p.file} ${p.field} ${p.message}`)).toEqual([
      'prompts/aaaaaaa.md line 1 names the gold file src/tallyup.js by its module name "tallyup": describe the symptom a user sees instead (or, when the symptom cannot be said without the word, allow it with a reason in the front matter: `allow: { tallyup: <why> }`)',
      'prompts/ccccccc.md line 2 names the gold file pkg/money.py by its path "pkg/money.py": describe the symptom a user sees instead',
      'prompts/ccccccc.md line 2 names the gold file pkg/money.py by its file name "money.py": describe the symptom a user sees instead',
      'prompts/ccccccc.md line 2 names the gold file pkg/money.py by its module name "money": describe the symptom a user sees instead (or, when the symptom cannot be said without the word, allow it with a reason in the front matter: `allow: { money: <why> }`)',
    ])
  })
})

describe('reading prompts', () => {
  const fixes = [`1234567aaaa${'0'.repeat(29)}`, `1234567bbbb${'0'.repeat(29)}`, `fedcba9${'0'.repeat(33)}`]

  it('matches prompts to candidates by commit prefix, with or without words after it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'prompts-'))
    dirs.push(dir)
    await writeFile(path.join(dir, '1234567aaaa-totals.md'), 'A symptom.\n')
    await writeFile(path.join(dir, 'fedcba9.md'), 'Another.\n')
    const prompts = await readPrompts(dir, fixes)
    expect([...prompts.keys()]).toEqual([fixes[0], fixes[2]])
    expect(prompts.get(fixes[2]!)?.text).toBe('Another.\n')
  })

  it('names every prompt it cannot use: a bad name, an ambiguous or unknown prefix, a second prompt, an empty one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'prompts-'))
    dirs.push(dir)
    await mkdir(dir, { recursive: true })
    await writeFile(path.join(dir, 'notes.md'), 'x')
    await writeFile(path.join(dir, '1234567.md'), 'x')
    await writeFile(path.join(dir, 'abcdef0.md'), 'x')
    await writeFile(path.join(dir, 'fedcba9-a.md'), 'x')
    await writeFile(path.join(dir, 'fedcba90.md'), 'y')
    await writeFile(path.join(dir, '1234567bbbb.md'), '  \n')
    const error = await readPrompts(dir, fixes).catch((e: unknown) => e)
    expect((error as ProblemsError).problems.map((p) => `${path.basename(p.file)}: ${p.message}`)).toEqual([
      '1234567.md: "1234567" matches 2 candidates: give more digits',
      '1234567bbbb.md: is empty: write the symptom a user would report',
      'abcdef0.md: "abcdef0" matches no candidate',
      `fedcba90.md: a second prompt for ${fixes[2]} (the first is fedcba9-a.md)`,
      'notes.md: a prompt is named by its fix commit: "<7+ hex digits of the commit>[-words].md"',
    ])
  })
})

describe('allowing a gold module name in the front matter', () => {
  const fix = 'd'.repeat(40)
  const problemsOf = (text: string, allow: { word: string; reason: string }[], gold = ['src/query.js'], bodyLineOffset = 0) => {
    try {
      checkPrompts([{ fix, file: 'prompts/ddddddd.md', text, allow, bodyLineOffset }], () => gold)
      return []
    } catch (error) {
      return (error as ProblemsError).problems.map((p) => `${p.field} ${p.message}`)
    }
  }
  const reason = 'users call the part after "?" the query'

  it('accepts an allowed module name, in any case', () => {
    expect(problemsOf('The Query part of a URL is dropped.\n', [{ word: 'query', reason }])).toEqual([])
  })

  it('never lets an allowance cover the file name or the path', () => {
    expect(problemsOf('The query is dropped (see src/query.js).\n', [{ word: 'query', reason }])).toEqual([
      'line 1 names the gold file src/query.js by its path "src/query.js": describe the symptom a user sees instead',
      'line 1 names the gold file src/query.js by its file name "query.js": describe the symptom a user sees instead',
    ])
  })

  it('refuses an allowance the prompt does not need', () => {
    expect(problemsOf('The part after "?" is dropped.\n', [{ word: 'query', reason }])).toEqual([
      'allow.query allows "query", but the prompt names no gold file\'s module by it: remove the allowance',
    ])
  })

  it('names the line in the file, front matter included', () => {
    expect(problemsOf('ok\nthe parse step fails\n', [], ['src/parse.js'], 4)[0]).toMatch(/^line 6 names the gold file src\/parse\.js/)
  })

  it('reads the allowances off the prompt file and keeps them out of its text', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'prompts-'))
    dirs.push(dir)
    await writeFile(path.join(dir, 'ddddddd.md'), `---\nallow:\n  query: ${reason}\n---\nThe query part of a URL is dropped.\n`)
    const prompt = (await readPrompts(dir, [fix])).get(fix)!
    expect(prompt.text).toBe('The query part of a URL is dropped.\n')
    expect(prompt.allow).toEqual([{ word: 'query', reason }])
    expect(prompt.bodyLineOffset).toBe(4)
  })

  it.each([
    ['a list of words without reasons', '---\nallow: [query]\n---\nText.\n', 'allow give each word its reason'],
    ['an empty reason', '---\nallow:\n  query: ""\n---\nText.\n', 'allow.query give the word its reason'],
    ['a field other than allow', '---\nallowed:\n  query: why\n---\nText.\n', 'allowed unknown field: remove it or fix its spelling'],
    ['front matter never closed', '---\nallow:\n  query: why\nText.\n', 'line 1 front matter opened with "---" is never closed'],
  ])('refuses %s, naming the file and field', async (_name, text, expected) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'prompts-'))
    dirs.push(dir)
    await writeFile(path.join(dir, 'ddddddd.md'), text)
    const error = await readPrompts(dir, [fix]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProblemsError)
    expect((error as ProblemsError).problems.map((p) => `${p.field} ${p.message}`).join('\n')).toContain(expected)
  })
})
