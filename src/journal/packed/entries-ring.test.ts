import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createJournalBudget } from '../budget.js'
import type { Raw } from '../entry.js'
import { createJournal } from '../journal.js'
import { ChunkLog } from './entries-ring.js'
import { FIELDS, HEADER_BYTES, setDelivered, unpack } from './record-layout.js'

const raw = (seq: number, overrides: Partial<Raw> = {}): Raw => ({
  seq,
  at: 1_780_315_200_123,
  method: 'POST',
  path: '/v1/pets',
  query: 'limit=2&status=sold',
  body: '{"name":"Rex 🐕 犬","categoryId":9223372036854775807}',
  bodySize: undefined,
  status: 201,
  headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': '59', location: '/v1/pets/51' },
  requestHeaders: { authorization: 'Bearer test-free', 'x-dup': ['a', 'b, c'], 'content-type': 'application/json', empty: '' },
  responseBody: '{"id":51,"name":"Rex 🐕 犬","categoryId":9223372036854775807}',
  responseTruncated: false,
  durationMs: 0.125,
  delayMs: 250,
  meta: { plan: 'free', keyHint: '…free', operation: 'createPet' },
  code: undefined,
  scenario: 'default',
  fault: undefined,
  arrival: seq,
  delivered: undefined,
  ...overrides,
})

const owner = { dropOldest: () => 0 }

describe('journal entries packed into chunks', () => {
  it('gives back every field as it was recorded: non-ASCII text, repeated headers, absent values', () => {
    const log = new ChunkLog(createJournalBudget(), owner)
    const cases = [
      raw(1),
      raw(2, { body: undefined, meta: undefined, scenario: undefined, requestHeaders: {}, headers: {}, responseBody: '' }),
      raw(3, { status: 429, code: 'rate_limited', fault: 'status-503', bodySize: 1_048_576, responseTruncated: true, delivered: 7 }),
      raw(4, { meta: { operation: 'listPets' }, query: '', path: '/v1/pets/%F0%9F%90%95', method: 'GET', body: '' }),
    ]
    const stored = cases.map((entry) => log.append(entry))
    for (const [i, entry] of cases.entries()) {
      const where = stored[i]
      if (!where) throw new Error('not stored')
      expect(unpack(where)).toEqual(entry)
    }
  })

  it('lays the fields of the record header one after another, none overlapping, the header ending after the last', () => {
    const size = { f64: 8, u32: 4, u16: 2 }
    let end = 0
    for (const field of Object.values(FIELDS).sort((a, b) => a.at - b.at)) {
      expect(field.at).toBe(end)
      end += size[field.type]
    }
    expect(HEADER_BYTES).toBe(end)
  })

  it('writes the delivery of an entry into its record afterwards', () => {
    const log = new ChunkLog(createJournalBudget(), owner)
    const where = log.append(raw(1))
    if (!where) throw new Error('not stored')
    expect(unpack(where).delivered).toBeUndefined()
    setDelivered(where.chunk, where.offset, 12)
    expect(unpack(where).delivered).toBe(12)
  })

  // A log of 200 entries, each with strings of its own (a path, query and headers that differ).
  const filledLog = () => {
    const budget = createJournalBudget(10 * 1024 * 1024)
    const log = new ChunkLog(budget, owner)
    const own = (seq: number) =>
      raw(seq, {
        path: `/v1/pets/${seq}`,
        query: `limit=${seq}`,
        headers: { 'x-seq': `${seq}`, 'x-ratelimit-remaining': `${seq}`, location: `/v1/pets/${seq}` },
        requestHeaders: { authorization: `Bearer key-${seq}`, 'x-dup': [`${seq}`, 'b'] },
        meta: { plan: 'free', keyHint: `…${seq}`, operation: `op${seq}` },
        body: `{"name":"Rex ${seq}"}`,
        responseBody: `{"id":${seq}}`,
      })
    for (let seq = 1; seq <= 200; seq++) log.append(own(seq))
    return { budget, log }
  }

  it('counts the bytes of its chunks in the budget', () => {
    const { budget, log } = filledLog()
    expect(budget.bytes).toBe(log.bytes)
    // Chunks grow from 4 KiB to 64 KiB: 200 entries of about 400 bytes take a few of them, not 200 allocations.
    expect(log.bytes).toBeGreaterThan(200 * 300)
    expect(log.bytes).toBeLessThan(4 * 64 * 1024)
  })

  it('gives the bytes of its chunks back to the budget on clear', () => {
    const { budget, log } = filledLog()
    log.clear()
    expect(budget.bytes).toBe(0)
  })
})

describe('records written whole', () => {
  // A client polling one list: the same method, path, query, request headers and response body each time; only the
  // remaining count, the numbers and the delivery differ from one entry to the next.
  const page = `[${'{"id":1,"name":"Rex 🐕 犬","categoryId":1},'.repeat(20)}]`
  const polled = Array.from({ length: 60 }, (_, i) =>
    raw(i + 1, {
      method: 'GET',
      body: undefined,
      status: 200,
      headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': `${1000 - i}` },
      responseBody: page,
      delivered: i % 3 === 0 ? undefined : i + 2,
    }),
  )

  it('reads back every entry exactly when each repeats the strings and the response body of the one before', () => {
    const log = new ChunkLog(createJournalBudget(), owner)
    const stored = polled.map((entry) => log.append(entry))
    expect(new Set(stored.map((where) => where?.chunk)).size).toBeGreaterThan(1)
    expect(stored.map((where) => (where ? unpack(where) : undefined))).toEqual(polled)
  })

  it('reads an entry from its own bytes: wiping every record before it in its chunk changes nothing', () => {
    const log = new ChunkLog(createJournalBudget(), owner)
    const stored = polled.map((entry) => log.append(entry))
    const last = stored.at(-1)
    if (!last) throw new Error('not stored')
    expect(stored.filter((where) => where?.chunk === last.chunk).length).toBeGreaterThan(2)
    last.chunk.bytes.fill(0xff, 0, last.offset)
    expect(unpack(last)).toEqual(polled.at(-1))
  })

  it('gives back every entry as recorded, whichever strings of the entry before it repeat, across chunks', () => {
    const template = raw(1)
    const field = fc.constantFrom('path', 'query', 'remaining', 'requestHeader', 'body', 'responseBody', 'meta', 'pairs', 'code')
    const entry = fc.record({ changes: fc.uniqueArray(field, { maxLength: 4 }), value: fc.string({ maxLength: 12 }) })
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 120 }), (changes) => {
        const log = new ChunkLog(createJournalBudget(), owner)
        const written: [Raw, ReturnType<ChunkLog['append']>][] = []
        for (const [i, { changes: fields, value }] of changes.entries()) {
          const next: Raw = {
            ...template,
            seq: i + 1,
            arrival: i + 1,
            headers: { ...template.headers },
            requestHeaders: { ...template.requestHeaders },
          }
          for (const name of fields) {
            if (name === 'path') next.path = `/v1/pets/${value}`
            if (name === 'query') next.query = value
            if (name === 'remaining') next.headers = { ...next.headers, 'x-ratelimit-remaining': value }
            if (name === 'requestHeader') next.requestHeaders = { ...next.requestHeaders, authorization: value, empty: `${value}!` }
            if (name === 'body') next.body = value === '' ? undefined : `{"n":"${value}"}`
            if (name === 'responseBody') next.responseBody = `${value}${'r'.repeat(70)}`
            if (name === 'meta') next.meta = undefined
            if (name === 'pairs') next.headers = { ...next.headers, [`x-${value}`]: value }
            if (name === 'code') next.code = value
          }
          written.push([next, log.append(next)])
        }
        for (const [expected, where] of written) {
          if (!where) throw new Error('not stored')
          expect(unpack(where)).toEqual(expected)
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('a journal over chunks', () => {
  const record = (journal: ReturnType<typeof createJournal>, path: string) =>
    journal.record(
      { method: 'GET', path, query: '', headers: { authorization: 'Bearer test-pro' }, body: undefined },
      // A body of its own per entry, 2 KB.
      { status: 200, headers: {}, body: `${path} ${'x'.repeat(2000)}` },
      { arrival: 1 },
    )

  it('holds a bounded number of bytes however many entries pass through it', () => {
    const budget = createJournalBudget()
    const journal = createJournal({ limit: 100, now: () => 0, budget })
    const seen: number[] = []
    for (let i = 0; i < 20_000; i++) {
      record(journal, `/v1/pets/${i}`)
      if (i % 1000 === 999) seen.push(budget.bytes)
    }
    expect(journal.all()).toHaveLength(100)
    expect(journal.all().at(-1)?.path).toBe('/v1/pets/19999')
    // 100 entries of 2 KB: a few 64 KiB chunks, the same number from the first thousand on.
    expect(Math.max(...seen)).toBeLessThanOrEqual(6 * 64 * 1024)
    expect(new Set(seen.slice(2)).size).toBe(1)
  })

  it('drops whole chunks of the oldest entries, of any journal, when the budget needs room', () => {
    const budget = createJournalBudget(256 * 1024)
    const a = createJournal({ limit: 1000, now: () => 0, budget })
    const b = createJournal({ limit: 1000, now: () => 0, budget })
    for (let i = 0; i < 300; i++) record(i % 2 ? b : a, `/p/${i}`)
    expect(budget.bytes).toBeLessThanOrEqual(256 * 1024)
    expect(budget.dropped).toBeGreaterThan(0)
    expect(a.all().length + b.all().length + budget.dropped).toBe(300)
    // The newest entries of both are kept; what is gone is the oldest.
    expect(b.all().at(-1)?.path).toBe('/p/299')
    expect(a.all().at(-1)?.path).toBe('/p/298')
    expect(a.all()[0]?.path).not.toBe('/p/0')
  })
})

describe('response bodies repeated by one answer after another', () => {
  const answer = (journal: ReturnType<typeof createJournal>, path: string, body: string) => {
    const response = { status: 200, headers: { 'content-type': 'application/json' }, body }
    journal.record({ method: 'GET', path, query: 'limit=20', headers: {}, body: undefined }, response, { arrival: 1 })
    journal.delivered(response, 2)
  }

  const repeatedPage = `[${'{"id":1,"name":"Rex 🐕","categoryId":1},'.repeat(40)}]`
  // A thousand answers, one after another, with the same body.
  const answeredAlike = () => {
    const budget = createJournalBudget()
    const journal = createJournal({ limit: 1000, now: () => 0, budget })
    for (let i = 0; i < 1000; i++) answer(journal, `/v1/pets/${i}`, repeatedPage)
    return { budget, journal }
  }

  it('gives a body repeated by one answer after another back with every entry', () => {
    const { journal } = answeredAlike()
    const entries = journal.all()
    expect(entries).toHaveLength(1000)
    for (const entry of entries) expect(entry.responseBody).toBe(repeatedPage)
  })

  it('gives back the right body of every entry kept, whatever the order of bodies repeated, new or short', () => {
    const bodies: Record<string, string> = { a: 'a'.repeat(3000), b: `${'b'.repeat(100)}犬`, short: 'tiny' }
    const bodyOf = (pick: string, i: number) => bodies[pick] ?? `${i} ${'u'.repeat(3000)}`
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'short', 'new', 'new'), { minLength: 1, maxLength: 1500, size: 'max' }),
        fc.integer({ min: 1, max: 60 }),
        (picks, limit) => {
          const journal = createJournal({ limit, now: () => 0, budget: createJournalBudget(512 * 1024) })
          for (const [i, pick] of picks.entries()) answer(journal, `/${i}/${pick}`, bodyOf(pick, i))
          for (const entry of journal.all()) {
            const [, i, pick] = entry.path.split('/')
            expect(entry.responseBody).toBe(bodyOf(pick as string, Number(i)))
          }
        },
      ),
      { numRuns: 150 },
    )
  })
})
