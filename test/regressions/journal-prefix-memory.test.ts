/**
 * Issue #13: a journal entry kept a 16 KiB prefix of a 0.9 MiB body as a slice, and V8 kept the whole body alive
 * behind it: 2,000 rejected bodies took the server past 1.8 GB. The prefix must be a string of its own.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { expect, it } from 'vitest'
import { createJournal } from '../../src/core/journal.js'
import { createJournalBudget } from '../../src/core/journal-budget.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

it('keeps 300 entries of distinct 0.9 MiB bodies in well under 100 MB of heap', () => {
  const journal = createJournal({ limit: 1_000, now: () => 0, budget: createJournalBudget(1024 * 1024 * 1024) })
  gc()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < 300; i++) {
    // A distinct flat string each time, as a body read from the network is.
    const body = `{"name":"${String(i).padStart(900 * 1024, 'x')}"}`
    journal.record(
      { method: 'POST', path: '/v1/pets', query: '', headers: {}, body, bodyBytes: body.length },
      { status: 400, headers: {}, body: '{"code":"invalid_body","message":"","status":400}' },
      { arrival: i + 1 },
    )
  }
  gc()
  const grown = (process.memoryUsage().heapUsed - before) / 1024 / 1024
  expect(journal.all()).toHaveLength(300)
  expect(grown).toBeLessThan(100)
})
