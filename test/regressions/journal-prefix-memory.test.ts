/**
 * Regression: a journal entry kept a 16 KiB prefix of a 0.9 MiB body as a slice, and V8 kept the whole body alive
 * behind it: 2,000 rejected bodies took the server past 1.8 GB. The prefix is a string of its own (`detachedSlice`).
 * Whether V8 keeps a body behind a prefix only the heap shows: `npm run bench -- --only=memory` measures it
 * (bench/memory-in-process.ts, under 100 MB for 300 entries). Here, what the journal keeps by its own count: each
 * entry the body's first 16 KiB and its size, and together far less than one body each; 30 bodies show it.
 */
import { expect, it } from 'vitest'
import { createJournalBudget } from '../../src/journal/budget.js'
import { BODY_PREFIX_CHARS, createJournal } from '../../src/journal/journal.js'

const BODY = 900 * 1024

/** A journal with an ample budget that has recorded 30 requests, each with a distinct 0.9 MiB body. */
function journalOf30Bodies() {
  const budget = createJournalBudget(1024 * 1024 * 1024)
  const journal = createJournal({ limit: 1_000, now: () => 0, budget })
  const bodies: string[] = []
  for (let i = 0; i < 30; i++) {
    // A distinct flat string each time, as a body read from the network is.
    const body = `{"name":"${String(i).padStart(BODY, 'x')}"}`
    bodies.push(body)
    journal.record(
      { method: 'POST', path: '/v1/pets', query: '', headers: {}, body },
      { status: 400, headers: {}, body: '{"code":"invalid_body","message":"","status":400}' },
      { arrival: i + 1 },
    )
  }
  return { budget, journal, bodies }
}

it('keeps the first 16 KiB of each of 30 distinct 0.9 MiB bodies with the size of the whole body', () => {
  const { journal, bodies } = journalOf30Bodies()
  const entries = journal.all()
  expect(entries).toHaveLength(30)
  entries.forEach((entry, i) => {
    expect(entry.bodyText).toBe(bodies[i]?.slice(0, BODY_PREFIX_CHARS))
    expect(entry).toMatchObject({ bodyTruncated: true, bodySize: bodies[i]?.length })
  })
})

it('counts what it keeps of 30 distinct 0.9 MiB bodies at under an eighth of a body each, dropping none', () => {
  const { budget } = journalOf30Bodies()
  // The journal's own account of the bytes it holds, the storage of each prefix included: an eighth of a body each
  // at most, where the bodies were 27 MB.
  expect(budget.bytes / 30).toBeLessThan(BODY / 8)
  expect(budget.dropped).toBe(0)
})
