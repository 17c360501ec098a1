import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resolveKeys } from '../keys.js'
import { authenticate, bearerToken } from './auth.js'

const keys = resolveKeys([{ key: 'test-pro', plan: 'pro' }])

describe('authenticate', () => {
  it('accepts the Bearer scheme in any case', () => {
    expect(authenticate('Bearer test-pro', keys)).toMatchObject({ ok: true, key: { plan: 'pro' } })
    expect(authenticate('bEaReR   test-pro ', keys)).toMatchObject({ ok: true })
  })
  it('refuses a missing, malformed or unknown key with a message that does not echo the whole key', () => {
    expect(authenticate(undefined, keys)).toMatchObject({ ok: false, message: expect.stringContaining('Missing API key') })
    expect(authenticate('Basic dGVzdA==', keys)).toMatchObject({ ok: false, message: expect.stringContaining('Malformed') })
    expect(authenticate('Bearer', keys)).toMatchObject({ ok: false })
    expect(authenticate('Bearer a b', keys)).toMatchObject({ ok: false })
    const unknown = authenticate('Bearer secret-value-1234', keys)
    expect(unknown).toMatchObject({ ok: false, message: 'Invalid API key …1234.' })
  })
})

/**
 * The spec's form, read another way: the value trimmed of spaces and tabs is the scheme `Bearer` in any case, one run
 * of spaces or tabs, and a token with neither.
 */
function tokenBySpec(value: string): string | undefined {
  const words = value.replace(/^[ \t]+|[ \t]+$/g, '').split(/[ \t]+/)
  return words.length === 2 && words[0]?.toLowerCase() === 'bearer' ? words[1] : undefined
}

describe('bearerToken', () => {
  const piece = fc.constantFrom(' ', '\t', '  ', 'Bearer', 'bearer', 'BEARER', 'Bearer ', 'x', 'key-1', '\u00a0', 'é', ',', '')
  const value = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(''))

  it('reads the token as the spec describes it, in the usual form or any other', () => {
    for (const sample of [
      'Bearer test-pro',
      'Bearer  test-pro',
      'Bearer test-pro ',
      'Bearer\ttest-pro',
      ' Bearer test-pro',
      'Bearer ',
      'Bearer a b',
      'Bearer é',
    ]) {
      expect(bearerToken(sample), sample).toBe(tokenBySpec(sample))
    }
    fc.assert(
      fc.property(value, (sample) => bearerToken(sample) === tokenBySpec(sample)),
      { numRuns: 2_000 },
    )
  })
})
