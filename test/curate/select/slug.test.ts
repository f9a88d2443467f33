import { describe, expect, it } from 'vitest'
import { slugFromSubject } from '../../../src/curate/select/slug.ts'

describe('a task folder slug from the commit subject', () => {
  it('drops the fix prefix in its usual spellings', () => {
    expect(slugFromSubject('fix: median of an even number', 'f'.repeat(40))).toBe('median-of-an-even-number')
    expect(slugFromSubject('Fix(stats): Median, again!', 'f'.repeat(40))).toBe('median-again')
    expect(slugFromSubject('fixes crash on empty input', 'f'.repeat(40))).toBe('crash-on-empty-input')
  })

  it('cuts at a word boundary to at most 40 characters', () => {
    const slug = slugFromSubject('fix: summaries leave out the last day of a date range', 'f'.repeat(40))
    expect(slug).toBe('summaries-leave-out-the-last-day-of-a')
    expect(slug.length).toBeLessThanOrEqual(40)
  })

  it('falls back to the commit when the subject has no words left', () => {
    expect(slugFromSubject('fix: ✓', '0123456789'.repeat(4))).toBe('fix-0123456')
  })
})
