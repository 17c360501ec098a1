import { describe, expect, it } from 'vitest'
import { createJournal, type JournalRecorder, type ScanOptions, type ScanStep } from './journal.js'

const request = (path: string) => ({ method: 'GET', path, query: '', headers: {}, body: undefined })
const answer = (status: number) => ({ status, headers: { 'content-type': 'application/json' }, body: '{}' })

/** A journal that keeps the newest `limit` of `count` requests to `/v1/pets/N`, every third answered 404. */
function journalOf(count: number, limit: number): JournalRecorder {
  const journal = createJournal({ limit, now: () => 0 })
  for (let i = 1; i <= count; i++) journal.record(request(`/v1/pets/${i}`), answer(i % 3 === 0 ? 404 : 200), { arrival: i })
  return journal
}

/** Every step of a scan from `from`, `count` kept entries at a time, until it says nothing is left. */
function scanAll<T>(step: (options: ScanOptions) => ScanStep<T>, from: number, toward: ScanOptions['toward'], count: number): T[][] {
  const steps: T[][] = []
  for (let next: number | undefined = from; next !== undefined; ) {
    const found = step({ from: next, toward, count })
    steps.push(found.entries)
    next = found.next
  }
  return steps
}

describe('a scan of the journal', () => {
  it('goes through every kept entry once toward newer, oldest first, in steps of at most `count`', () => {
    const journal = journalOf(250, 100)
    const steps = scanAll((options) => journal.scan({}, options), 0, 'newer', 7)
    expect(steps.every((step) => step.length <= 7)).toBe(true)
    expect(steps.flat().map((entry) => entry.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 151 + i))
  })

  it('goes through every kept entry once toward older from a cursor, newest first', () => {
    const journal = journalOf(250, 100)
    const seqs = scanAll((options) => journal.scan({}, options), 200, 'older', 9)
      .flat()
      .map((entry) => entry.seq)
    expect(seqs).toEqual(Array.from({ length: 49 }, (_, i) => 199 - i))
  })

  it('keeps only the entries matching the filter, and still looks at no more than `count` entries a step', () => {
    const journal = journalOf(60, 100)
    const steps = scanAll((options) => journal.scan({ status: 404 }, options), 0, 'newer', 5)
    expect(steps).toHaveLength(12)
    expect(steps.flat().map((entry) => entry.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 3 * (i + 1)))
  })

  it('gives summaries without bodies or headers (the event replay)', () => {
    const journal = journalOf(3, 10)
    const [summary] = journal.scanSummaries({ from: 0, toward: 'newer', count: 1 }).entries
    expect(summary).toMatchObject({ seq: 1, path: '/v1/pets/1', status: 200 })
    expect(summary).not.toHaveProperty('responseBody')
  })

  it('tells the newest sequence number recorded, kept or not', () => {
    expect(journalOf(12, 5).lastSeq).toBe(12)
    expect(journalOf(12, 0).lastSeq).toBe(12)
  })
})
