import { describe, expect, it } from 'vitest'
import { reasonFacts, reasonOf } from './reason.js'

/** A 429 of the free plan's minute window (spec: Rate limiting; decision 22), as the core answers it. */
const minute429 = {
  status: 429,
  rule: 'rate.minute-window' as const,
  plan: 'free',
  keyHint: '…free',
  headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1780315260', 'retry-after': '42' },
}

describe('reason facts', () => {
  it('reads the window from the X-RateLimit headers: used is the limit less what remains, the reset in ISO 8601', () => {
    expect(reasonFacts(minute429)).toEqual({
      rule: 'rate.minute-window',
      facts: {
        plan: 'free',
        key: '…free',
        limit: 60,
        used: 60,
        resetsAt: '2026-06-01T12:01:00.000Z',
        retryAfter: '42',
        window: 'minute',
        decision: '22',
      },
    })
  })

  it('gives the same rule and facts as the reason with its sentence', () => {
    const { text, ...rest } = reasonOf(minute429)
    expect(rest).toEqual(reasonFacts(minute429))
    expect(text).toBe(
      '429 rate.minute-window: key …free on plan free used 60 of 60 in the minute window that resets at 2026-06-01T12:01:00.000Z',
    )
  })

  it('states no window fact a header does not give as a plain decimal number', () => {
    const headers = { 'x-ratelimit-limit': '6e1', 'x-ratelimit-remaining': '', 'x-ratelimit-reset': '-5' }
    expect(reasonFacts({ ...minute429, headers }).facts).toEqual({ plan: 'free', key: '…free', window: 'minute', decision: '22' })
  })

  it('names a 2xx the core did not name ok, and any other unnamed answer a fault', () => {
    expect(reasonFacts({ status: 204, headers: {} }).rule).toBe('ok')
    expect(reasonFacts({ status: 503, headers: {} }).rule).toBe('scenario.fault')
  })
})
