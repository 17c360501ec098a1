import { describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/create-pet-store.js'
import '../../src/vitest.js'

/** A Free key at 12:00:00 with its minute used up: the next request is 429 with Retry-After 60. */
async function limitedStore() {
  const petStore = createPetStore({ clock: '2026-06-01T12:00:00Z', pets: 3 })
  for (let i = 0; i < 60; i++) await send(petStore)
  return petStore
}
const send = (petStore: ReturnType<typeof createPetStore>, key = 'test-free') =>
  petStore.fetch('/v1/pets', { headers: { authorization: `Bearer ${key}` } })

describe('petStore.audit()', () => {
  it('finds no violation when the client waits for Retry-After', async () => {
    const petStore = await limitedStore()
    expect((await send(petStore)).status).toBe(429)
    petStore.clock.advance(60_000)
    expect((await send(petStore)).status).toBe(200)
    const report = petStore.audit()
    expect(report.ok).toBe(true)
    expect(report.keys).toMatchObject([
      { key: 'free …free', requests: 62, violations: [], banned: false, backoffGrew: true, retryGapsMs: [[60_000]] },
    ])
    expect(report.keys[0]?.rateLimited).toEqual([
      { seq: 61, time: '2026-06-01T12:00:00.000Z', code: 'rate_limited', retryAt: '2026-06-01T12:01:00.000Z' },
    ])
    expect(petStore).toHaveNoRetryViolations()
  })

  it('reports each request sent before Retry-After had passed', async () => {
    const petStore = await limitedStore()
    await send(petStore)
    petStore.clock.advance(10_000)
    await send(petStore)
    petStore.clock.advance(20_000)
    await send(petStore)
    const [key] = petStore.audit().keys
    expect(key?.violations).toEqual([
      { seq: 62, time: '2026-06-01T12:00:10.000Z', earlyByMs: 50_000, after: 61 },
      { seq: 63, time: '2026-06-01T12:00:30.000Z', earlyByMs: 30_000, after: 62 },
    ])
    expect(key?.banned).toBe(false)
    expect(() => expect(petStore).toHaveNoRetryViolations()).toThrow(
      /key free …free sent 2 request\(s\) before Retry-After had passed \(first: #62, 50000 ms early/,
    )
  })

  it('reports a key that got banned', async () => {
    const petStore = await limitedStore()
    for (let i = 0; i < 6; i++) await send(petStore)
    const [key] = petStore.audit().keys
    expect(key?.banned).toBe(true)
    expect(key?.violations).toHaveLength(5)
    expect(key?.rateLimited.at(-1)).toMatchObject({ code: 'key_temporarily_banned', retryAt: '2026-06-01T12:15:00.000Z' })
    expect(petStore.audit().problems).toEqual([expect.stringMatching(/and was temporarily banned$/)])
  })

  it('tells whether the gaps between retries grew', async () => {
    const growing = await limitedStore()
    await send(growing)
    for (const gap of [60_000, 61_000]) {
      growing.clock.advance(gap)
      await send(growing)
    }
    // The second request after the 429 is 200, so the run ends after one gap.
    expect(growing.audit().keys[0]?.backoffGrew).toBe(true)

    const petStore = createPetStore({
      clock: '2026-06-01T12:00:00Z',
      keys: [{ key: 'k', plan: 'enterprise', limits: { perMinute: 1, perDay: 1000 } }],
      rateLimit: { banAfterEarlyRetries: 100 },
    })
    await send(petStore, 'k')
    for (const gap of [0, 5_000, 3_000, 2_000]) {
      petStore.clock.advance(gap)
      await send(petStore, 'k')
    }
    const [flat] = petStore.audit().keys
    expect(flat?.retryGapsMs).toEqual([[5_000, 3_000, 2_000]])
    expect(flat?.backoffGrew).toBe(false)
    expect(() => expect(petStore).toHaveBackedOff()).toThrow(/expected retry gaps to grow/)
  })

  it('audits each key on its own, leaving out requests without a key', async () => {
    const petStore = await limitedStore()
    await send(petStore)
    await send(petStore)
    await send(petStore, 'test-pro')
    await petStore.fetch('/v1/pets')
    const report = petStore.audit()
    expect(report.keys.map((key) => [key.key, key.ok])).toEqual([
      ['free …free', false],
      ['pro …-pro', true],
    ])
  })
})

describe('in-flight requests', () => {
  const limited = () =>
    createPetStore({ clock: '2026-06-01T12:00:00Z', pets: 3, keys: [{ key: 'k', plan: 'pro', limits: { perMinute: 2 } }] })

  it('does not count requests that were already in flight when a 429 was sent', async () => {
    const petStore = limited()
    const statuses = await Promise.all(Array.from({ length: 5 }, () => send(petStore, 'k').then((response) => response.status)))
    expect(statuses.filter((status) => status === 429)).toHaveLength(3)
    expect(petStore.audit().keys[0]?.violations).toEqual([])
  })

  it('counts an immediate retry after the client had the 429, even on a frozen clock', async () => {
    const petStore = limited()
    await send(petStore, 'k')
    await send(petStore, 'k')
    expect((await send(petStore, 'k')).status).toBe(429)
    await send(petStore, 'k')
    expect(petStore.audit().keys[0]?.violations).toEqual([{ seq: 4, time: '2026-06-01T12:00:00.000Z', earlyByMs: 60_000, after: 3 }])
  })
})
