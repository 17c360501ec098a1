import { describe, expect, it } from 'vitest'
import type { ApiResponse } from '../../core/types.js'
import { createJournalBudget } from '../budget.js'
import { createJournal } from '../journal.js'

const request = (path: string) => ({ method: 'GET', path, query: '', headers: { authorization: 'Bearer test-pro' }, body: undefined })
const response = (body: string): ApiResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, body })

/** Records `count` answers, `/v1/pets/1` first, none delivered yet. */
function recordMany(journal: ReturnType<typeof createJournal>, count: number): ApiResponse[] {
  const answers: ApiResponse[] = []
  for (let i = 1; i <= count; i++) {
    const answer = response(`{"n":${i}}`)
    answers.push(answer)
    journal.record(request(`/v1/pets/${i}`), answer, { arrival: i })
  }
  return answers
}

describe('the entries a journal keeps', () => {
  it('keeps the newest entries in order however often its ring fills, grows or wraps around', () => {
    const journal = createJournal({ limit: 37, now: () => 0 })
    for (let i = 1; i <= 500; i++) {
      const answer = response(`{"n":${i}}`)
      journal.record(request(`/v1/pets/${i}`), answer, { arrival: i })
      journal.delivered(answer, i + 1)
    }
    const kept = journal.all()
    expect(kept.map((entry) => entry.path)).toEqual(Array.from({ length: 37 }, (_, i) => `/v1/pets/${464 + i}`))
    expect(kept.map((entry) => entry.delivered)).toEqual(Array.from({ length: 37 }, (_, i) => 465 + i))
    expect(journal.get(kept[0]?.seq ?? 0)?.path).toBe('/v1/pets/464')
    expect(journal.get((kept[0]?.seq ?? 0) - 1)).toBeUndefined()
  })

  it('records the delivery of an answer recorded before others were delivered', () => {
    const journal = createJournal({ limit: 10, now: () => 0 })
    const first = response('{"first":true}')
    journal.record(request('/v1/pets/1'), first, { arrival: 1 })
    const second = response('{"second":true}')
    journal.record(request('/v1/pets/2'), second, { arrival: 2 })
    journal.delivered(second, 3)
    journal.delivered(first, 3)
    expect(journal.all().map((entry) => [entry.path, entry.delivered])).toEqual([
      ['/v1/pets/1', 3],
      ['/v1/pets/2', 3],
    ])
  })

  it('writes nothing into newer entries when an answer is delivered after its own entry left the journal', () => {
    // Entries of about 2 KB fill 64 KiB chunks, which are reused once their entries have left: a late delivery
    // must not write into the bytes of the entries that now use the chunk, however late it comes.
    for (let delay = 40; delay <= 160; delay += 3) {
      const journal = createJournal({ limit: 40, now: () => 0, budget: createJournalBudget() })
      const late = response('y'.repeat(2000))
      for (let i = 1; i <= 100 + delay; i++) {
        if (i === 100) journal.record(request('/v1/pets/late'), late, { arrival: 0 })
        const answer = response('x'.repeat(2000))
        journal.record(request(`/v1/pets/${i}`), answer, { arrival: i })
        journal.delivered(answer, 7)
      }
      journal.delivered(late, 123_456)
      for (const entry of journal.all()) {
        expect(entry.delivered).toBe(7)
        expect(entry.responseBody).toBe('x'.repeat(2000))
      }
    }
  })

  it('records the deliveries of many answers held at once, whether in order, out of order or past the cap', () => {
    // The standalone server holds a turn's answers and delivers them oldest first; a host may also deliver out of
    // order, or never (the queue keeps at most the journal's limit or 1,000 of them).
    const journal = createJournal({ limit: 2_000, now: () => 0 })
    const answers = recordMany(journal, 1_300)
    // 1,300 held: the 1,000 answers recorded before the newest are kept (cap 2,000), so none is dropped yet.
    for (let i = 0; i < 200; i++) journal.delivered(answers[i] as ApiResponse, 10_000 + i)
    journal.delivered(answers[700] as ApiResponse, 1)
    journal.delivered(answers[250] as ApiResponse, 2)
    for (let i = 200; i < 1_300; i++) journal.delivered(answers[i] as ApiResponse, 20_000 + i)
    const delivered = journal.all().map((entry) => entry.delivered)
    expect(delivered.slice(0, 200)).toEqual(Array.from({ length: 200 }, (_, i) => 10_000 + i))
    expect(delivered[250]).toBe(2)
    expect(delivered[700]).toBe(1)
    expect(delivered.filter((value, i) => i >= 200 && i !== 250 && i !== 700 && value !== 20_000 + i)).toEqual([])
  })

  it('still records the deliveries of the newest held answers once the oldest are forgotten past the cap', () => {
    const journal = createJournal({ limit: 10, now: () => 0 })
    const answers = recordMany(journal, 1_100)
    // Cap 1,000 before the newest: the first 99 answers are forgotten, their entries gone from a journal of 10 anyway.
    for (const answer of answers) journal.delivered(answer, 5)
    expect(journal.all().map((entry) => [entry.path, entry.delivered])).toEqual(
      Array.from({ length: 10 }, (_, i) => [`/v1/pets/${1_091 + i}`, 5]),
    )
  })

  it('records deliveries turn after turn while some answers stay held for many turns', () => {
    // Turns of 10 answers delivered oldest first, with one answer in every 7th turn held back until the end: the
    // answers behind a held-back one are found past it.
    const journal = createJournal({ limit: 5_000, now: () => 0 })
    const heldBack: { answer: ApiResponse; n: number }[] = []
    let n = 0
    for (let turn = 0; turn < 300; turn++) {
      const answers: { answer: ApiResponse; n: number }[] = []
      for (let i = 0; i < 10; i++) {
        n += 1
        const answer = response(`{"n":${n}}`)
        journal.record(request(`/v1/pets/${n}`), answer, { arrival: n })
        answers.push({ answer, n })
      }
      for (const [i, held] of answers.entries()) {
        if (turn % 7 === 0 && i === 3) heldBack.push(held)
        else journal.delivered(held.answer, held.n + 1)
      }
    }
    for (const held of heldBack) journal.delivered(held.answer, -held.n)
    const byPath = new Map(journal.all().map((entry) => [entry.path, entry.delivered]))
    expect(byPath.size).toBe(3_000)
    for (let i = 1; i <= 3_000; i++) {
      const wasHeld = heldBack.some((held) => held.n === i)
      expect(byPath.get(`/v1/pets/${i}`)).toBe(wasHeld ? -i : i + 1)
    }
  })

  it('records deliveries that keep lagging five answers behind the recording', () => {
    // The queue never empties: its front moves on, and its taken slots are dropped from time to time.
    const journal = createJournal({ limit: 1_000, now: () => 0 })
    const answers: ApiResponse[] = []
    for (let i = 1; i <= 1_000; i++) {
      const answer = response(`{"n":${i}}`)
      answers.push(answer)
      journal.record(request(`/v1/pets/${i}`), answer, { arrival: i })
      if (i > 5) journal.delivered(answers[i - 6] as ApiResponse, 3 * (i - 5))
    }
    for (let i = 995; i < 1_000; i++) journal.delivered(answers[i] as ApiResponse, 3 * (i + 1))
    expect(journal.all().map((entry) => entry.delivered)).toEqual(Array.from({ length: 1_000 }, (_, i) => 3 * (i + 1)))
  })
})
