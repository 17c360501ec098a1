import { describe, expect, it } from 'vitest'
import { createJournal } from './journal.js'
import { createJournalBudget } from './journal-budget.js'
import type { ApiResponse } from './types.js'

const request = (path: string) => ({ method: 'GET', path, query: '', headers: { authorization: 'Bearer test-pro' }, body: undefined })
const response = (body: string): ApiResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, body })

describe('the entries a journal keeps', () => {
  it('keeps the newest entries in order as its ring fills, grows and wraps around', () => {
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
})
