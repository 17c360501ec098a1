/**
 * One judge of client behaviour (src/journal/client-rules.ts): the report card and the audit of a journal (the MCP
 * `audit` tool's checks) state each rule id with the same rule, judge only the ids the rules file gives them, and the
 * journal's checks say what the retry audit says.
 */
import { describe, expect, it } from 'vitest'
import { CHECKS } from '../../src/check/catalogue.js'
import { createPetStore } from '../../src/create-pet-store.js'
import { journalChecks } from '../../src/journal/client-checks.js'
import { CLIENT_RULES } from '../../src/journal/client-rules.js'

type PetStore = ReturnType<typeof createPetStore>

/** A Free key at 12:00:00 with its minute used up: the next request is 429 with Retry-After 60. */
async function limitedStore(): Promise<PetStore> {
  const petStore = createPetStore({ clock: '2026-06-01T12:00:00Z', pets: 3 })
  for (let i = 0; i < 60; i++) await send(petStore)
  return petStore
}
const send = (petStore: PetStore, key = 'test-free') => petStore.fetch('/v1/pets', { headers: { authorization: `Bearer ${key}` } })
/** The checks the MCP `audit` tool answers for this store: read from its audit and its journal, as the tool reads them. */
const checksOf = (petStore: PetStore) => journalChecks(petStore.audit(), petStore.journal.find({}))
const statusOf = (petStore: PetStore, id: string) => checksOf(petStore).find((check) => check.id === id)?.status

describe('the rules file', () => {
  const judgedBy = (judge: 'card' | 'journal') => CLIENT_RULES.filter((rule) => rule.judgedBy.includes(judge))

  it('is where the card takes each check: the ids it gives the card, each with its rule, source, fix and level', () => {
    expect(CHECKS.map((check) => check.id)).toEqual(judgedBy('card').map((rule) => rule.id))
    for (const check of CHECKS) {
      const { judgedBy: _, ...rule } = CLIENT_RULES.find((one) => one.id === check.id) ?? { judgedBy: [] }
      expect({ id: check.id, level: check.level, rule: check.rule, source: check.source, fix: check.fix }).toEqual(rule)
    }
  })

  it("is where the journal's checks take theirs: the ids it gives the journal, each with its rule", async () => {
    const checks = checksOf(await limitedStore())
    expect(checks.map((check) => check.id).sort()).toEqual(
      judgedBy('journal')
        .map((rule) => rule.id)
        .sort(),
    )
    for (const check of checks) expect(check.rule).toBe(CLIENT_RULES.find((rule) => rule.id === check.id)?.rule)
  })

  it('gives no id two rules: the 503 retries the card provokes and the 429 retries a journal shows have ids of their own', () => {
    expect(new Set(CLIENT_RULES.map((rule) => rule.id)).size).toBe(CLIENT_RULES.length)
    expect(CLIENT_RULES.find((rule) => rule.id === 'retry.backoff')).toMatchObject({
      judgedBy: ['card'],
      rule: expect.stringMatching(/^Retries of a 503 /),
    })
    expect(CLIENT_RULES.find((rule) => rule.id === 'rate.backoff')).toMatchObject({
      judgedBy: ['journal'],
      rule: expect.stringMatching(/after 429s/),
    })
  })
})

describe("the journal's checks say what the retry audit says", () => {
  it('passes every rule the traffic met when the client waits for Retry-After', async () => {
    const petStore = await limitedStore()
    expect((await send(petStore)).status).toBe(429)
    petStore.clock.advance(60_000)
    expect((await send(petStore)).status).toBe(200)
    expect(petStore.audit().ok).toBe(true)
    expect(statusOf(petStore, 'rate.retry-after-seconds')).toBe('passed')
    expect(statusOf(petStore, 'rate.stops-before-ban')).toBe('passed')
  })

  it("fails rate.retry-after-seconds on the audit's first early request, naming it", async () => {
    const petStore = await limitedStore()
    await send(petStore)
    petStore.clock.advance(10_000)
    await send(petStore)
    const [key] = petStore.audit().keys
    expect(key?.violations[0]).toMatchObject({ seq: 62, earlyByMs: 50_000, after: 61 })
    const check = checksOf(petStore).find((one) => one.id === 'rate.retry-after-seconds')
    expect(check).toMatchObject({ status: 'failed', reason: expect.stringContaining('Request #62') })
    expect(check?.reason).toContain('50000 ms before the Retry-After of #61')
  })

  it('fails rate.stops-before-ban when the audit finds the key banned', async () => {
    const petStore = await limitedStore()
    for (let i = 0; i < 6; i++) await send(petStore)
    expect(petStore.audit().keys[0]?.banned).toBe(true)
    expect(statusOf(petStore, 'rate.stops-before-ban')).toBe('failed')
  })

  it('fails rate.backoff when the waits between retries of a 429 shrink, and passes it when they grow', async () => {
    /** A key of one request a minute (the journal shows it as its plan and last four characters), retried after its 429 with these waits (no ban: early retries are allowed here). */
    const retriedWith = async (gaps: number[]) => {
      const petStore = createPetStore({
        clock: '2026-06-01T12:00:00Z',
        keys: [{ key: 'key-flat', plan: 'enterprise', limits: { perMinute: 1, perDay: 1000 } }],
        rateLimit: { banAfterEarlyRetries: 100 },
      })
      await send(petStore, 'key-flat')
      for (const gap of gaps) {
        petStore.clock.advance(gap)
        await send(petStore, 'key-flat')
      }
      return petStore
    }
    const shrinking = await retriedWith([0, 5_000, 3_000, 2_000])
    expect(shrinking.audit().keys[0]?.backoffGrew).toBe(false)
    expect(checksOf(shrinking).find((check) => check.id === 'rate.backoff')).toMatchObject({
      status: 'failed',
      reason: 'The waits did not grow for enterprise …flat.',
    })
    const growing = await retriedWith([0, 1_000, 2_000, 4_000])
    expect(growing.audit().keys[0]?.backoffGrew).toBe(true)
    expect(statusOf(growing, 'rate.backoff')).toBe('passed')
  })
})
