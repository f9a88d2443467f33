import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { describe, expect, test } from 'vitest'
import { DataError, describeSchemaIssues, HarnessFailure, ProblemsError, schemaProblems, SpecError, type TaskOutcomeError } from '../src/errors.ts'
import { CursorSchemasUnavailable } from '../src/scripted-model/cursor-schemas.ts'

const Schema = z.strictObject({ name: z.string(), faults: z.array(z.strictObject({ kind: z.enum(['drop']) })) })
const issuesOf = (value: unknown) => Schema.safeParse(value).error!.issues

describe('schemaProblems: the one way a schema refusal is put into words', () => {
  test('names each field as a dotted path, array indices as numbers, under the given prefix', () => {
    expect(schemaProblems(issuesOf({ name: 1, faults: [{ kind: 'boom' }] }), 'agent.options').map((problem) => problem.field)).toEqual([
      'agent.options.name',
      'agent.options.faults.0.kind',
    ])
  })

  test('an unknown key is a problem of its own, named by its full path, saying what to do', () => {
    expect(schemaProblems(issuesOf({ name: 'x', faults: [{ kind: 'drop', extra: 1 }], typo: true }))).toEqual([
      { field: 'faults.0.extra', message: 'unknown field: remove it or fix its spelling' },
      { field: 'typo', message: 'unknown field: remove it or fix its spelling' },
    ])
  })

  test('a refused whole value is (root), or the prefix itself', () => {
    expect(schemaProblems(Schema.safeParse(3).error!.issues)[0]!.field).toBe('(root)')
    expect(schemaProblems(Schema.safeParse(3).error!.issues, 'manifest.experiment')[0]!.field).toBe('manifest.experiment')
  })

  test('describeSchemaIssues puts them on one line', () => {
    expect(describeSchemaIssues(issuesOf({ name: 1, faults: [] }))).toMatch(/^field name: [^;]+$/)
  })
})

test('every error class has a stable code namespaced TASK_OUTCOME_', () => {
  const errors: TaskOutcomeError[] = [new HarnessFailure('crash', 'x'), new SpecError('x'), new DataError('x'), new ProblemsError('x', [])]
  expect(errors.map((error) => error.code)).toEqual(['TASK_OUTCOME_HARNESS_FAILURE', 'TASK_OUTCOME_SPEC_ERROR', 'TASK_OUTCOME_DATA_ERROR', 'TASK_OUTCOME_PROBLEMS'])
  expect(new ProblemsError('x', [])).toBeInstanceOf(SpecError)
  expect(new CursorSchemasUnavailable('x').code).toBe('TASK_OUTCOME_SPEC_ERROR')
})

test("every error class of src/ extends TaskOutcomeError (so it carries a TASK_OUTCOME_ code), but the CLI's exit signal", () => {
  const root = path.resolve(import.meta.dirname, '../src')
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))
  const plain = files.flatMap((file) =>
    [...readFileSync(path.join(root, file), 'utf8').matchAll(/class (\w+) extends (?:Error|TypeError|RangeError)\b/g)].map(
      (match) => `${file.split(path.sep).join('/')}: ${match[1]}`,
    ),
  )
  expect(plain.sort()).toEqual(['cli/exit-code.ts: ExitCode', 'errors.ts: TaskOutcomeError'])
})
