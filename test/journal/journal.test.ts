import { describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/create-pet-store.js'
import { createJournalBudget } from '../../src/journal/budget.js'
import { BODY_PREFIX_CHARS, createJournal } from '../../src/journal/journal.js'

const NOON = '2026-06-01T12:00:00Z'
const get = (petStore: ReturnType<typeof createPetStore>, path: string, key = 'test-pro') =>
  petStore.fetch(path, { headers: { authorization: `Bearer ${key}` } })

describe('the request journal', () => {
  it('keeps the last N exchanges, newest last', async () => {
    const petStore = createPetStore({ journalLimit: 3, clock: NOON })
    for (const id of [1, 2, 3, 4, 5]) await get(petStore, `/v1/pets/${id}`)
    expect(petStore.journal.all().map((entry) => entry.path)).toEqual(['/v1/pets/3', '/v1/pets/4', '/v1/pets/5'])
    expect(petStore.journal.all().map((entry) => entry.seq)).toEqual([3, 4, 5])
  })

  /** A world at noon whose journal holds one POST /v1/pets of the key test-free. */
  const journalOfOnePost = async () => {
    const petStore = createPetStore({ clock: NOON })
    await petStore.fetch('/v1/pets?limit=2', {
      method: 'POST',
      headers: { authorization: 'Bearer test-free', 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":9223372036854775807}',
    })
    return petStore.journal.all()
  }

  it('records an exchange as one entry: its time on the store clock, the request, the answer with its rate-limit headers', async () => {
    const [entry] = await journalOfOnePost()
    expect(entry).toEqual({
      seq: 1,
      at: Date.parse(NOON),
      time: '2026-06-01T12:00:00.000Z',
      method: 'POST',
      path: '/v1/pets',
      query: 'limit=2',
      key: 'free …free',
      plan: 'free',
      operation: 'createPet',
      bodySize: 47,
      body: { name: 'Rex', categoryId: 9223372036854775807n },
      bodyTruncated: false,
      status: 201,
      rateLimit: { limit: 60, remaining: 59, reset: Date.parse(NOON) / 1000 + 60 },
      code: undefined,
      scenario: 'default',
      fault: undefined,
      arrival: 1,
      delivered: 2,
      // docs/spec-decisions.md row 55: what the panel's details and the HAR show. The key is redacted like `key`; the body kept as sent.
      durationMs: expect.any(Number),
      delayMs: 0,
      bodyText: '{"name":"Rex","categoryId":9223372036854775807}',
      requestHeaders: { authorization: 'Bearer …free', 'content-type': 'application/json' },
      responseHeaders: expect.objectContaining({ location: '/v1/pets/51', 'x-ratelimit-remaining': '59' }),
      responseBody: '{"id":51,"name":"Rex","categoryId":9223372036854775807}',
      responseBodyTruncated: false,
      // The Free plan's minute window (spec, "Limits": 60 a minute) after its first request: 1 of 60 used.
      rule: 'ok',
      reason: {
        rule: 'ok',
        facts: { plan: 'free', key: '…free', limit: 60, used: 1, resetsAt: '2026-06-01T12:01:00.000Z' },
        text: '201 ok: key …free on plan free, answered as the spec defines the operation',
      },
    })
    expect(entry?.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('keeps the API key out of the journal, redacted wherever it appears', async () => {
    const entries = await journalOfOnePost()
    expect(JSON.stringify(entries, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('test-free')
  })

  describe('find()', () => {
    /** A journal of three exchanges: a Pro list, a Free 404, a list without a key. */
    const journalOfThree = async () => {
      const petStore = createPetStore()
      await get(petStore, '/v1/pets')
      await get(petStore, '/v1/pets/999', 'test-free')
      await petStore.fetch('/v1/pets')
      return petStore.journal
    }

    it('finds entries by status', async () => {
      const journal = await journalOfThree()
      expect(journal.find({ status: 404 }).map((e) => e.path)).toEqual(['/v1/pets/999'])
    })

    it('finds entries by a path pattern', async () => {
      const journal = await journalOfThree()
      expect(journal.find({ path: /^\/v1\/pets\/\d+$/ })).toHaveLength(1)
    })

    it('finds entries matching every field of a filter at once, the method in any case', async () => {
      const journal = await journalOfThree()
      expect(journal.find({ method: 'get', plan: 'pro' })).toHaveLength(1)
    })

    it('finds entries by error code', async () => {
      const journal = await journalOfThree()
      expect(journal.find({ code: 'unauthorized' })).toMatchObject([{ key: undefined, status: 401 }])
    })
  })

  it('empties on clear()', async () => {
    const petStore = createPetStore()
    await get(petStore, '/v1/pets')
    petStore.journal.clear()
    expect(petStore.journal.all()).toEqual([])
  })

  it('waits for an exchange that has not happened yet', async () => {
    const petStore = createPetStore()
    const waiting = petStore.journal.waitFor((entry) => entry.status === 201)
    await petStore.fetch('/v1/pets', {
      method: 'POST',
      headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json' },
      body: '{"name":"a","categoryId":1}',
    })
    await expect(waiting).resolves.toMatchObject({ status: 201, operation: 'createPet' })
  })

  it('gives up waiting after the timeout with a clear message', async () => {
    const petStore = createPetStore()
    await expect(petStore.journal.waitFor(() => false, { timeout: 20 })).rejects.toThrow(
      /\[petstore-mock\] journal\.waitFor\(\) timed out after 20 ms/,
    )
  })

  it('keeps nothing with journalLimit 0', async () => {
    const petStore = createPetStore({ journalLimit: 0 })
    await get(petStore, '/v1/pets')
    expect(petStore.journal.all()).toEqual([])
  })

  it('keeps at most 16 KiB of a body, marked truncated with the size of the whole body', async () => {
    const petStore = createPetStore()
    const body = `{"name":"${'é'.repeat(300_000)}","categoryId":1}`
    await petStore.fetch('/v1/pets', {
      method: 'POST',
      headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json' },
      body,
    })
    const [entry] = petStore.journal.all()
    expect(entry?.bodyTruncated).toBe(true)
    expect(entry?.bodySize).toBe(new TextEncoder().encode(body).length)
    expect(entry?.body).toBe(body.slice(0, BODY_PREFIX_CHARS))
  })

  it('pages the newest entries first, then older ones before a cursor, or newer ones after it', async () => {
    const petStore = createPetStore()
    for (const id of [1, 2, 3, 4, 5]) await get(petStore, `/v1/pets/${id}`)
    const newest = petStore.journal.page({}, { limit: 2 })
    expect(newest.entries.map((entry) => entry.seq)).toEqual([4, 5])
    expect(newest.more).toBe(true)
    const older = petStore.journal.page({}, { limit: 2, before: 4 })
    expect(older.entries.map((entry) => entry.seq)).toEqual([2, 3])
    expect(petStore.journal.page({}, { limit: 2, before: 2 })).toMatchObject({ more: false })
    expect(petStore.journal.page({}, { limit: 10, after: 3 }).entries.map((entry) => entry.seq)).toEqual([4, 5])
    expect(petStore.journal.page({ path: '/v1/pets/2' }, { limit: 10 }).entries.map((entry) => entry.seq)).toEqual([2])
  })
})

describe('the journal budget', () => {
  const record = (journal: ReturnType<typeof createJournal>, path: string, body = 'x'.repeat(1000)) =>
    journal.record(
      { method: 'POST', path, query: '', headers: {}, body },
      { status: 400, headers: {}, body: '{"code":"invalid_body","message":"","status":400}' },
      { arrival: 1 },
    )

  /** Two journals sharing a 20,000-byte cap, three entries of about 1,000 bytes recorded in each, a's first. */
  const twoJournalsOverTheCap = () => {
    const budget = createJournalBudget(20_000)
    const a = createJournal({ limit: 1000, now: () => 0, budget })
    const b = createJournal({ limit: 1000, now: () => 0, budget })
    for (let i = 0; i < 3; i++) record(a, `/a/${i}`)
    for (let i = 0; i < 3; i++) record(b, `/b/${i}`)
    return { budget, a, b }
  }

  it('drops the oldest entries of any journal once the journals together hold more than the cap', () => {
    const { budget, a, b } = twoJournalsOverTheCap()
    expect(budget.bytes).toBeLessThanOrEqual(20_000)
    const kept = [...a.all(), ...b.all()].map((entry) => entry.path)
    // The oldest go first, whichever journal they are in: the newest of b is always kept.
    expect(kept).toContain('/b/2')
    expect(kept).not.toContain('/a/0')
  })

  it('counts the entries it drops to stay within the cap', () => {
    const { budget, a, b } = twoJournalsOverTheCap()
    expect(budget.dropped).toBeGreaterThan(0)
    expect(a.all().length + b.all().length + budget.dropped).toBe(6)
  })

  describe('with entries larger than the whole cap', () => {
    /** A journal under a 1-byte cap, told of three entries of about 1,000 bytes; `told` is what its listener heard. */
    const underOneByte = () => {
      const budget = createJournalBudget(1)
      const journal = createJournal({ limit: 1000, now: () => 0, budget })
      const told: number[] = []
      journal.listen((seq) => told.push(seq))
      for (let i = 0; i < 3; i++) record(journal, `/p/${i}`)
      return { budget, journal, told }
    }

    it('keeps none of them', () => {
      expect(underOneByte().journal.all()).toEqual([])
    })

    it('counts each of them as dropped', () => {
      expect(underOneByte().budget).toMatchObject({ bytes: 0, dropped: 3 })
    })

    it('still tells listeners of each of them', () => {
      expect(underOneByte().told).toEqual([1, 2, 3])
    })
  })

  it('answers requests under a journal cap of 1 byte, keeping no entry (it used to fail every request)', async () => {
    const petStore = createPetStore({ journalMaxBytes: 1 })
    const response = await get(petStore, '/v1/pets?limit=1')
    expect(response.status).toBe(200)
    expect(petStore.journal.all()).toEqual([])
  })

  it('gives the bytes of cleared entries back', () => {
    const budget = createJournalBudget(1_000_000)
    const journal = createJournal({ limit: 1000, now: () => 0, budget })
    for (let i = 0; i < 10; i++) record(journal, `/p/${i}`)
    expect(budget.bytes).toBeGreaterThan(0)
    journal.clear()
    expect(budget.bytes).toBe(0)
  })

  // 150 entries of a 16 KiB prefix each are more than the 2 MiB cap holds: the oldest must go.
  it('stays within the cap over 150 entries of 0.9 MiB bodies', () => {
    const budget = createJournalBudget(2 * 1024 * 1024)
    const journal = createJournal({ limit: 1000, now: () => 0, budget })
    const big = 'y'.repeat(900 * 1024)
    for (let i = 0; i < 150; i++) record(journal, '/v1/pets', big)
    expect(budget.dropped).toBeGreaterThan(0)
    expect(budget.bytes).toBeLessThanOrEqual(2 * 1024 * 1024)
    expect(journal.all().length).toBeGreaterThan(10)
    expect(journal.all().every((entry) => entry.bodyTruncated && entry.bodySize === 900 * 1024)).toBe(true)
  })

  it('records the delivery of answers handed out after later ones were recorded, in any order (the server holds a turn)', async () => {
    const petStore = createPetStore({ clock: NOON })
    const request = (id: number) => ({
      method: 'GET',
      path: `/v1/pets/${id}`,
      query: '',
      headers: { authorization: 'Bearer test-pro' },
      body: undefined,
    })
    const answers = await Promise.all([1, 2, 3, 4].map((id) => petStore.handle(request(id))))
    // The answers of one turn go out after all four are recorded, not in the order they came.
    for (const at of [1, 0, 3, 2]) petStore.markDelivered(answers[at] as (typeof answers)[number])
    // Delivered after the fourth arrival: each entry names the fifth as the first request after it went out.
    expect(petStore.journal.all().map((entry) => [entry.path, entry.arrival, entry.delivered])).toEqual([
      ['/v1/pets/1', 1, 5],
      ['/v1/pets/2', 2, 5],
      ['/v1/pets/3', 3, 5],
      ['/v1/pets/4', 4, 5],
    ])
  })
})
