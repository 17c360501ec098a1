import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { issuePath, issuesText, issueText } from './issues.js'

describe('the words of a zod issue', () => {
  it('writes a path as a person reads it: keys with dots, indexes in brackets', () => {
    expect(issuePath(['faults', 0, 'chaos'])).toBe('faults[0].chaos')
    expect(issuePath([0, 'name'])).toBe('[0].name')
    expect(issuePath([])).toBe('(root)')
    expect(issuePath([], 'the value')).toBe('the value')
  })

  it('gives each issue its place and message, the first five of an error', () => {
    const schema = z.array(z.object({ name: z.string() }))
    const result = schema.safeParse(Array.from({ length: 7 }, () => ({ name: 1 })))
    if (result.success) throw new Error('expected issues')
    expect(issueText(result.error.issues[0] as z.core.$ZodIssue)).toMatch(/^\[0\]\.name: Invalid input: expected string/)
    const text = issuesText(result.error)
    expect(text.split('; ')).toHaveLength(5)
    expect(text).toContain('[4].name: ')
    expect(text).not.toContain('[5].name')
  })
})
