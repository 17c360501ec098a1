/**
 * Why this answer (docs/explain.md): the journal records the rule that decided each answer with its facts, and
 * `X-Mock-Reason` carries the same when asked (`X-Mock-Explain: 1`, `explain: true`), never otherwise.
 */
import { describe, expect, it } from 'vitest'
import { createPetStore, type PetStore } from '../../src/index.js'
import { toHar } from '../../src/journal/har.js'
import { playSequence, SEQUENCE_KEYS } from './sequence.js'

const storeWith = (explain?: boolean): PetStore =>
  createPetStore({ keys: SEQUENCE_KEYS, clock: '2026-06-01T12:00:00Z', ...(explain === undefined ? {} : { explain }) })

/** Drives a world in-process, asking for the reason on each request when `ask`. */
const driverOf = (petStore: PetStore, ask: boolean) => ({
  send: (path: string, init: { key?: string; headers?: Record<string, string> } = {}) =>
    petStore.fetch(path, {
      headers: {
        ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
        ...(ask ? { 'x-mock-explain': '1' } : {}),
        ...init.headers,
      },
    }),
  setClock: async (iso: string) => petStore.clock.set(iso),
})

/** `rule; name=value; …` as a rule and its facts (quoted values unquoted). */
function parseReason(header: string | null) {
  const [rule, ...pairs] = (header ?? '').split('; ')
  const facts = Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=')
      const raw = pair.slice(at + 1)
      return [pair.slice(0, at), raw.startsWith('"') ? raw.slice(1, -1) : raw]
    }),
  )
  return { rule, facts }
}

describe('why this answer', () => {
  it('records in the journal the rule of each answer of the scripted run, with the facts the spec states', async () => {
    const petStore = storeWith()
    const played = await playSequence(driverOf(petStore, false))
    const entries = petStore.journal.all()
    for (const { step, response, seq } of played) {
      expect(response.status, step.label).toBe(step.status)
      const entry = entries.find((candidate) => candidate.seq === seq)
      expect(entry?.rule, step.label).toBe(step.rule)
      expect(entry?.reason.rule, step.label).toBe(step.rule)
      expect(entry?.reason.facts, step.label).toMatchObject(step.facts ?? {})
    }
    const minute = entries.find((entry) => entry.rule === 'rate.minute-window')
    expect(minute?.reason.text).toBe(
      '429 rate.minute-window: key …free on plan free used 60 of 60 in the minute window that resets at 2026-06-01T12:01:00.000Z',
    )
  })

  it('sends X-Mock-Reason with the same rule and facts when the request asks, and never unasked', async () => {
    const asked = await playSequence(driverOf(storeWith(), true))
    for (const { step, response } of asked) {
      const reason = parseReason(response.headers.get('x-mock-reason'))
      expect(reason.rule, step.label).toBe(step.rule)
      expect(reason.facts, step.label).toMatchObject(
        Object.fromEntries(Object.entries(step.facts ?? {}).map(([name, value]) => [name, String(value)])),
      )
    }
    const unasked = await playSequence(driverOf(storeWith(), false))
    expect(unasked.map(({ response }) => response.headers.get('x-mock-reason'))).toEqual(unasked.map(() => null))
  })

  it('sends X-Mock-Reason on every answer with explain: true, the key written in ASCII', async () => {
    const played = await playSequence(driverOf(storeWith(true), false))
    const first = played[0]?.response.headers.get('x-mock-reason')
    expect(first).toBe('ok; plan=free; key=...free; limit=60; used=1; resetsAt="2026-06-01T12:01:00.000Z"')
    expect(played.every(({ response }) => response.headers.get('x-mock-reason') !== null)).toBe(true)
  })

  it('filters the journal by rule or by a family of rules', async () => {
    const petStore = storeWith()
    await playSequence(driverOf(petStore, false))
    expect(petStore.journal.find({ rule: 'rate.ban' }).map((entry) => entry.status)).toEqual([429])
    expect(new Set(petStore.journal.find({ rule: 'rate.' }).map((entry) => entry.rule))).toEqual(
      new Set(['rate.minute-window', 'rate.ban', 'rate.day-window']),
    )
  })

  it("puts each answer's reason first in its HAR entry's comment", async () => {
    const petStore = storeWith()
    const played = await playSequence(driverOf(petStore, false))
    const har = toHar(petStore.journal.all(), { origin: 'http://127.0.0.1:4010', version: 'test' })
    for (const { step, seq } of played) {
      const comment = String(har.log.entries[seq - 1]?.comment)
      expect(comment.startsWith(`reason: ${step.status} ${step.rule}:`), `${step.label}: ${comment}`).toBe(true)
    }
  })
})
