/**
 * Timelines: a scenario's stages start and end on the world's clock (docs/scenarios.md, "Timelines"). With the manual
 * clock a test plays a whole incident in a few milliseconds; each world, and so each session of a server, plays its own.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createPetStore, type PetStore } from '../../src/index.js'
import { durationMs } from '../../src/world/timeline.js'
import { auth, closeServers, startServer } from '../http/support.js'
import { comparableEntry } from '../support/journal-fields.js'

afterEach(closeServers)

const LIST = { method: 'GET', path: '/v1/pets', query: 'limit=1', headers: { authorization: 'Bearer test-free' }, body: undefined }

/** One request a minute for `minutes` minutes: each answer's minute, stage, status and delay. */
async function playMinutes(petStore: PetStore, minutes: number) {
  const seen: { minute: number; status: number; delayMs: number }[] = []
  for (let minute = 0; minute < minutes; minute++) {
    const response = await petStore.handle(LIST)
    seen.push({ minute, status: response.status, delayMs: response.delayMs ?? 0 })
    petStore.clock.advance(60_000)
  }
  return seen
}

/** The status of a 200, else the Error body's code, of the free key's list. */
async function codeOf(petStore: PetStore): Promise<number | string> {
  const response = await petStore.handle(LIST)
  return response.status === 200 ? 200 : (JSON.parse(response.body) as { code: string }).code
}

describe('timelines', () => {
  it('plays outage-incident on the manual clock: slowing from 5 min, 503 from 10, recovered from 20', async () => {
    const petStore = createPetStore({ scenario: 'outage-incident' })
    const seen = await playMinutes(petStore, 30)
    const statuses = seen.map((answer) => answer.status)
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(10).fill(503), ...Array(10).fill(200)])
    expect(seen.slice(0, 5).every((answer) => answer.delayMs === 0)).toBe(true)
    expect(seen.slice(5, 10).every((answer) => answer.delayMs > 0)).toBe(true)
    const stages = petStore.journal.all().map((entry) => entry.stage)
    expect(stages).toEqual([
      ...Array(5).fill(undefined),
      ...Array(5).fill('slowing'),
      ...Array(10).fill('outage'),
      ...Array(10).fill('recovered'),
    ])
    const view = petStore.timeline()
    expect(view).toMatchObject({
      scenario: 'outage-incident',
      startedAt: '2026-06-01T12:00:00.000Z',
      elapsedMs: 30 * 60_000,
      current: 'recovered',
    })
    expect(view?.stages.map(({ name, startsAt, endsAt, requests, statuses }) => ({ name, startsAt, endsAt, requests, statuses }))).toEqual([
      { name: 'slowing', startsAt: '2026-06-01T12:05:00.000Z', endsAt: '2026-06-01T12:10:00.000Z', requests: 5, statuses: { 200: 5 } },
      { name: 'outage', startsAt: '2026-06-01T12:10:00.000Z', endsAt: '2026-06-01T12:20:00.000Z', requests: 10, statuses: { 503: 10 } },
      { name: 'recovered', startsAt: '2026-06-01T12:20:00.000Z', endsAt: null, requests: 10, statuses: { 200: 10 } },
    ])
    // The delay percentiles of a stage are those of the delays its answers carried (nearest rank over 5 values).
    const slowing = seen
      .slice(5, 10)
      .map((answer) => Math.round(answer.delayMs))
      .sort((a, b) => a - b)
    expect(view?.stages[0]?.delayMs).toEqual({ p50: slowing[2], p90: slowing[4], p99: slowing[4], max: slowing[4] })
    expect(view?.stages[1]?.delayMs).toEqual({ p50: 0, p90: 0, p99: 0, max: 0 })
  })

  it('gives the same seed and timeline the same answers and delays, and starts again on reset', async () => {
    const first = await playMinutes(createPetStore({ scenario: 'outage-incident', seed: 7 }), 12)
    const petStore = createPetStore({ scenario: 'outage-incident', seed: 7 })
    expect(await playMinutes(petStore, 12)).toEqual(first)
    await petStore.reset()
    expect(await playMinutes(petStore, 12)).toEqual(first)
  })

  it("sets a stage's key counters once, as the stage starts: a ban from the second minute", async () => {
    const scenario = {
      name: 'ban-at-1m',
      description: 'the free key banned from the second minute',
      clock: { start: '2026-06-01T12:00:00Z', frozen: true },
      timeline: [{ name: 'banned', after: '1m', keys: { start: { 'test-free': { bannedForSeconds: 120 } } } }],
    }
    const petStore = createPetStore({ scenario: 'ban-at-1m', scenarios: [scenario] })
    const codes = async () => {
      const response = await petStore.handle(LIST)
      return response.status === 200 ? 200 : (JSON.parse(response.body) as { code: string }).code
    }
    expect(await codes()).toBe(200)
    petStore.clock.advance(60_000)
    expect([await codes(), await codes()]).toEqual(['key_temporarily_banned', 'key_temporarily_banned'])
    // The ban is set once, when the stage starts: it ends 120 s later, although the stage goes on.
    petStore.clock.advance(121_000)
    expect(await codes()).toBe(200)
  })

  it('starts a stage once: the clock moved back into a stage played already sets its counters no more', async () => {
    const scenario = {
      name: 'short-ban',
      description: 'the free key banned for 30 s as the second minute starts, then calm',
      clock: { start: '2026-06-01T12:00:00Z', frozen: true },
      timeline: [
        { name: 'banned', after: '1m', for: '1m', keys: { start: { 'test-free': { bannedForSeconds: 30 } } } },
        { name: 'calm', after: '2m' },
      ],
    }
    const petStore = createPetStore({ scenario: 'short-ban', scenarios: [scenario] })
    petStore.clock.set('2026-06-01T12:01:05Z')
    expect(await codeOf(petStore)).toBe('key_temporarily_banned')
    petStore.clock.set('2026-06-01T12:02:05Z')
    expect(await codeOf(petStore)).toBe(200)
    // Back in "banned", its 30 s over: entering it again would ban the key until 12:02:15.
    petStore.clock.set('2026-06-01T12:01:45Z')
    expect(await codeOf(petStore)).toBe(200)
    expect(petStore.journal.all().map((entry) => entry.stage)).toEqual(['banned', 'calm', 'banned'])
  })

  it("keeps what a stage's keys.start leaves out: a ban outlasts a later stage that uses up every key's minute", async () => {
    const scenario = {
      name: 'ban-then-quota',
      description: 'the free key banned for 10 minutes from the second minute; every minute used up from the third',
      clock: { start: '2026-06-01T12:00:00Z', frozen: true },
      timeline: [
        { name: 'banned', after: '1m', for: '1m', keys: { start: { 'test-free': { bannedForSeconds: 600 } } } },
        { name: 'quota-gone', after: '2m', keys: { start: { '*': { minuteUsed: 'all' } } } },
      ],
    }
    const petStore = createPetStore({ scenario: 'ban-then-quota', scenarios: [scenario] })
    petStore.clock.set('2026-06-01T12:01:00Z')
    expect(await codeOf(petStore)).toBe('key_temporarily_banned')
    petStore.clock.set('2026-06-01T12:02:00Z')
    // Still the ban (until 12:11), not the used-up minute; the minute is used up as the stage says.
    expect(await codeOf(petStore)).toBe('key_temporarily_banned')
    expect(petStore.rateLimiter.counters('test-free')).toMatchObject({
      bannedUntil: Date.parse('2026-06-01T12:11:00Z'),
      minuteCount: 60,
    })
  })

  it.each([
    [
      [
        { name: 'a', after: '5m', for: '10m' },
        { name: 'b', after: '10m' },
      ],
      'timeline[1] ("b"): starts before "a" ends',
    ],
    [
      [
        { name: 'a', after: '1m' },
        { name: 'a', after: '2m' },
      ],
      'timeline[1] ("a"): another stage has this name',
    ],
    [[{ name: 'a', after: 'soon' }], 'must be a length of time such as "90s", "5m", "1h" or "PT5M"'],
  ])('refuses a timeline whose stages do not follow each other: %j', (timeline, message) => {
    const scenario = { name: 'bad', description: 'a bad timeline', timeline }
    expect(() => createPetStore({ scenario: 'bad', scenarios: [scenario] })).toThrow(message)
  })

  it("judges the incident against the scenario's expect: a client that hammers through the quota ends banned", async () => {
    const hammer = createPetStore({ scenario: 'quota-exhaustion' })
    hammer.clock.advance(2 * 60_000)
    for (let i = 0; i < 7; i++) await hammer.handle(LIST)
    const verdict = hammer.timeline()?.verdict
    expect(verdict).toMatchObject({ ok: false, noBan: true, bannedKeys: ['free …free'], longestFailureRun: { 'free …free': 7 } })
    expect(verdict?.errorRate).toBe(1)

    // One that waits for Retry-After (the minute's end, 30 s on) is not banned.
    const patient = createPetStore({ scenario: 'quota-exhaustion' })
    patient.clock.advance(2 * 60_000)
    const refused = await patient.handle(LIST)
    expect(refused.status).toBe(429)
    patient.clock.advance(Number(refused.headers['retry-after']) * 1000)
    expect((await patient.handle(LIST)).status).toBe(200)
    expect(patient.timeline()?.verdict).toMatchObject({ ok: true, errorRate: 0.5, bannedKeys: [], longestFailureRun: { 'free …free': 1 } })
  })

  it("counts a fault answered before the key check under the key the request carried, not '(no valid key)'", async () => {
    const down = {
      name: 'down',
      description: 'served for a minute, then every answer a 503, before any key is read',
      timeline: [
        { name: 'fine', after: '0s', for: '1m' },
        { name: 'outage', after: '1m', faults: [{ chaos: true, fault: { type: 'status', status: 503 } }] },
      ],
    }
    const petStore = createPetStore({ scenario: 'down', scenarios: [down] })
    expect((await petStore.handle(LIST)).status).toBe(200)
    petStore.clock.advance(60_000)
    for (let i = 0; i < 3; i++) expect((await petStore.handle(LIST)).status).toBe(503)
    expect((await petStore.handle({ ...LIST, headers: {} })).status).toBe(503)
    expect(petStore.timeline()?.verdict.longestFailureRun).toEqual({ 'free …free': 3, '(no key)': 1 })
    // The scenario expects nothing: its verdict says so by naming no expectation, not `noBan: false`.
    expect(petStore.timeline()?.verdict).not.toHaveProperty('noBan')
    expect(petStore.timeline()?.verdict).not.toHaveProperty('maxErrorRate')
    // A key no answer named by its plan is named by the hint the journal keeps of it.
    const fresh = createPetStore({ scenario: 'down', scenarios: [down] })
    fresh.clock.advance(60_000)
    await fresh.handle(LIST)
    expect(fresh.timeline()?.verdict.longestFailureRun).toEqual({ '…free': 1 })
  })

  it('plays slow-day: a long tail at the peak only, every answer a 2xx, so its verdict holds', async () => {
    const petStore = createPetStore({ scenario: 'slow-day', seed: 3 })
    const seen = await playMinutes(petStore, 30)
    const median = (minutes: typeof seen) =>
      [...minutes].map((answer) => answer.delayMs).sort((a, b) => a - b)[minutes.length >> 1] as number
    expect(median(seen.slice(10, 20))).toBeGreaterThan(median(seen.slice(0, 10)))
    expect(petStore.timeline()?.verdict).toMatchObject({ ok: true, errorRate: 0, maxErrorRate: 0 })
    expect(petStore.timeline()?.stages.map((stage) => stage.requests)).toEqual([10, 10, 10])
  })

  it('crosses the Sunset on the clock: a timeline that starts before it answers getPet 410 from the stage that reaches it', async () => {
    // The spec's Sunset of GET /pets/{petId} is 2030-12-05T00:00:00Z ("Deprecations"): a scenario whose clock starts
    // ten minutes before it reaches it in its stage at 10 min.
    const scenario = {
      name: 'sunset-night',
      description: 'the last ten minutes of getPet',
      clock: { start: '2030-12-04T23:50:00Z', frozen: true },
      timeline: [{ name: 'after-sunset', after: '10m' }],
    }
    const petStore = createPetStore({ scenarios: [scenario], scenario: 'sunset-night' })
    const getPet = () => petStore.handle({ ...LIST, path: '/v1/pets/1', query: '' })
    expect((await getPet()).status).toBe(200)
    petStore.clock.advance(10 * 60_000)
    expect((await getPet()).status).toBe(410)
    expect(petStore.journal.all().map((entry) => [entry.stage, entry.rule])).toEqual([
      [undefined, 'ok'],
      ['after-sunset', 'lifecycle.after-sunset'],
    ])
  })

  it('reads durations as the scenario format writes them', () => {
    expect(['250ms', '90s', '5m', '1h', 'PT1H30M', 'PT0.5S'].map(durationMs)).toEqual([250, 90_000, 300_000, 3_600_000, 5_400_000, 500])
  })
})

describe('timelines over HTTP, per session', () => {
  it('gives the same journal over HTTP as in-process for the same seed, timeline and traffic (wall-clock fields aside)', async () => {
    const { url } = await startServer({ seed: 5, scenario: 'outage-incident' })
    const petStore = createPetStore({ seed: 5, scenario: 'outage-incident' })
    for (let minute = 0; minute < 14; minute++) {
      await (await fetch(`${url}/v1/pets?limit=1`, { headers: auth('test-free') })).arrayBuffer()
      await petStore.fetch('/v1/pets?limit=1', { headers: auth('test-free') })
      await fetch(`${url}/__mock/clock`, { method: 'POST', body: JSON.stringify({ advanceSeconds: 60 }) })
      petStore.clock.advance(60_000)
    }
    const overHttp = await (await fetch(`${url}/__mock/requests?limit=100`)).json()
    const seqs = overHttp.map((entry: { seq: number }) => entry.seq)
    const full = await Promise.all(seqs.map(async (seq: number) => (await fetch(`${url}/__mock/requests/${seq}`)).json()))
    const inProcess = petStore.journal.all().map((entry) => JSON.parse(JSON.stringify(entry)))
    // The fields every host records alike (test/support/journal-fields.ts).
    expect(full.map(comparableEntry)).toEqual(inProcess.map(comparableEntry))
    expect(inProcess.map((entry) => entry.stage)).toContain('outage')
  })

  it('plays each session its own timeline, started when its scenario started; GET /__mock/timeline shows it', async () => {
    const { url } = await startServer()
    const session = (name: string) => ({ 'x-mock-session': name, 'content-type': 'application/json' })
    const admin = (path: string, name: string, method = 'GET', body?: object) =>
      fetch(`${url}${path}`, { method, headers: session(name), ...(body ? { body: JSON.stringify(body) } : {}) })
    expect((await admin('/__mock/scenario', 'early', 'PUT', { name: 'outage-incident' })).status).toBe(200)
    expect((await admin('/__mock/scenario', 'late', 'PUT', { name: 'outage-incident' })).status).toBe(200)
    await admin('/__mock/clock', 'early', 'POST', { advanceSeconds: 12 * 60 })
    await admin('/__mock/clock', 'late', 'POST', { advanceSeconds: 6 * 60 })
    const statusIn = async (name: string) => (await fetch(`${url}/v1/pets?limit=1`, { headers: auth('test-free', session(name)) })).status
    expect([await statusIn('early'), await statusIn('late'), await statusIn('other')]).toEqual([503, 200, 200])
    const early = await (await admin('/__mock/timeline', 'early')).json()
    expect(early).toMatchObject({ scenario: 'outage-incident', current: 'outage', elapsedMs: 12 * 60_000 })
    expect(early.stages.map((stage: { name: string; requests: number }) => [stage.name, stage.requests])).toEqual([
      ['slowing', 0],
      ['outage', 1],
      ['recovered', 0],
    ])
    expect((await (await admin('/__mock/timeline', 'late')).json()).current).toBe('slowing')
    expect(await (await admin('/__mock/timeline', 'other')).json()).toEqual({ scenario: 'default', current: null, stages: [] })
    const journal = async (name: string) =>
      (await (await admin('/__mock/requests', name)).json()).map((entry: { stage?: string }) => entry.stage)
    expect([await journal('early'), await journal('late')]).toEqual([['outage'], ['slowing']])
  })
})
