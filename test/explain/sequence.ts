/**
 * One scripted run through every kind of answer the spec documents, and a seeded 503: the same requests in every
 * test of test/explain (journal, X-Mock-Reason, spans, metrics), each with the rule the spec and docs/spec-decisions.md
 * say decided it. The expected rules are written from the spec, not read back from the mock.
 */

/** Sends one request to the world under test (in-process or over HTTP) and moves its clock. */
export interface Driver {
  send(path: string, init?: { key?: string; headers?: Record<string, string> }): Promise<Response>
  setClock(iso: string): Promise<void>
}

/** The keys of the run: the four test keys and one whose day holds a single request (an enterprise key's custom limits). */
export const SEQUENCE_KEYS = [
  { key: 'test-free', plan: 'free' },
  { key: 'test-pro', plan: 'pro' },
  { key: 'test-day-once', plan: 'enterprise', limits: { perMinute: 100, perDay: 1 } },
] as const

export interface Step {
  readonly label: string
  readonly status: number
  readonly rule: string
  /** Facts the reason must state (a subset). */
  readonly facts?: Record<string, string | number>
}

/** A step as played: its response, and its number in the run (the journal's `seq` in a fresh world). */
export interface Played {
  readonly step: Step
  readonly response: Response
  readonly seq: number
}

export const NOON = '2026-06-01T12:00:30Z'

/**
 * Plays the run; returns each step's response with what the spec says it must be.
 * Free plan: 60 a minute (spec, "Limits"); after the first 429, the 5th request before Retry-After has passed earns a
 * ban (decision 30).
 */
export async function playSequence(driver: Driver): Promise<Played[]> {
  const played: Played[] = []
  let sent = 0
  const send: Driver['send'] = (path, init) => {
    sent += 1
    return driver.send(path, init)
  }
  const play = async (step: Step, path: string, init?: { key?: string; headers?: Record<string, string> }) => {
    const response = await send(path, init)
    played.push({ step, response, seq: sent })
    return response
  }
  await driver.setClock(NOON)
  await play({ label: '200', status: 200, rule: 'ok', facts: { plan: 'free', limit: 60, used: 1 } }, '/v1/pets?limit=1', {
    key: 'test-free',
  })
  await play({ label: '401', status: 401, rule: 'auth.missing' }, '/v1/pets')
  await play({ label: '404', status: 404, rule: 'data.pet-not-found', facts: { plan: 'pro' } }, '/v1/pets/999999', { key: 'test-pro' })
  for (let i = 0; i < 59; i++) await (await send('/v1/pets?limit=1', { key: 'test-free' })).arrayBuffer()
  const minute = { limit: 60, used: 60, window: 'minute', resetsAt: '2026-06-01T12:01:00.000Z', plan: 'free', decision: '22' }
  await play({ label: '429 minute', status: 429, rule: 'rate.minute-window', facts: minute }, '/v1/pets?limit=1', { key: 'test-free' })
  for (let i = 0; i < 4; i++) await (await send('/v1/pets?limit=1', { key: 'test-free' })).arrayBuffer()
  await play({ label: 'ban', status: 429, rule: 'rate.ban', facts: { plan: 'free', decision: '30' } }, '/v1/pets?limit=1', {
    key: 'test-free',
  })
  await (await send('/v1/pets?limit=1', { key: 'test-day-once' })).arrayBuffer()
  const day = { limit: 1, used: 1, window: 'day', resetsAt: '2026-06-02T00:00:00.000Z', plan: 'enterprise' }
  await play({ label: '429 day', status: 429, rule: 'rate.day-window', facts: day }, '/v1/pets?limit=1', { key: 'test-day-once' })
  await driver.setClock('2030-12-05T00:00:00Z')
  await play({ label: '410', status: 410, rule: 'lifecycle.after-sunset', facts: { decision: '32' } }, '/v1/pets/1', { key: 'test-pro' })
  const fault = { scenario: 'outage', fault: 'status-503', faultRule: 0, decision: '39' }
  await play({ label: 'seeded 503', status: 503, rule: 'scenario.fault', facts: fault }, '/v1/pets', {
    key: 'test-pro',
    headers: { 'x-mock-scenario': 'outage' },
  })
  return played
}
