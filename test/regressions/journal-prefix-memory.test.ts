/**
 * Issue #13: a journal entry kept a 16 KiB prefix of a 0.9 MiB body as a slice, and V8 kept the whole body alive
 * behind it: 2,000 rejected bodies took the server past 1.8 GB. The prefix must be a string of its own.
 */
import { expect, it } from 'vitest'
import { createJournal } from '../../src/core/journal.js'
import { createJournalBudget } from '../../src/core/journal-budget.js'
import { heapGrowthOf } from '../support/heap.js'

it('keeps 300 entries of distinct 0.9 MiB bodies in well under 100 MB of heap', async () => {
  const journal = createJournal({ limit: 1_000, now: () => 0, budget: createJournalBudget(1024 * 1024 * 1024) })
  const { bytes } = await heapGrowthOf(() => recordBodies(journal))
  expect(journal.all()).toHaveLength(300)
  expect(bytes / 1024 / 1024).toBeLessThan(100)
})

function recordBodies(journal: ReturnType<typeof createJournal>): void {
  for (let i = 0; i < 300; i++) {
    // A distinct flat string each time, as a body read from the network is.
    const body = `{"name":"${String(i).padStart(900 * 1024, 'x')}"}`
    journal.record(
      { method: 'POST', path: '/v1/pets', query: '', headers: {}, body, bodyBytes: body.length },
      { status: 400, headers: {}, body: '{"code":"invalid_body","message":"","status":400}' },
      { arrival: i + 1 },
    )
  }
}
