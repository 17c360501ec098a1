import { describe, expect, it } from 'vitest'
import { resolveKeys } from '../keys.js'
import { authenticate } from './auth.js'

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
