/**
 * The admin routes the control panel reads (docs/spec-decisions.md rows 54-56), on the standalone server over loopback
 * (its panel files come from dist/, built when stale): the live sessions, the keys' quota and bans, one whole journal
 * entry, the journal as HAR, and the panel page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, closeServers, ensureBuilt, startServer } from './support.js'

beforeAll(ensureBuilt, 90_000)

const FROZEN = '2026-06-01T12:00:30Z'
const FROZEN_MS = Date.parse(FROZEN)

let url: string
beforeAll(async () => {
  url = (await startServer()).url
})
afterAll(closeServers)

interface ErrorBody {
  code: string
  message: string
  status: number
}

interface KeyRow {
  key: string
  plan: string
  perMinute: number
  perDay: number
  minuteRemaining: number
  minuteResetsAt: string
  dayRemaining: number
  dayResetsAt: string
  bannedUntil: string | null
}

async function expectError(response: Response, status: number, code?: string): Promise<ErrorBody> {
  const text = await response.text()
  expect(response.status, text).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = JSON.parse(text) as ErrorBody
  expect(body).toEqual({ code: code ?? expect.stringMatching(/^[a-z]+(_[a-z]+)*$/), message: expect.any(String), status })
  return body
}

const withSession = (name: string, headers: Record<string, string> = {}) => ({ 'x-mock-session': name, ...headers })

async function freeze(session: string, iso = FROZEN): Promise<void> {
  const response = await fetch(`${url}/__mock/clock`, { method: 'POST', headers: withSession(session), body: JSON.stringify({ set: iso }) })
  expect(response.status).toBe(200)
}

async function call(
  path: string,
  session: string,
  key: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${url}${path}`, {
    ...init,
    headers: auth(key, withSession(session, (init.headers ?? {}) as Record<string, string>)),
  })
  return { status: response.status, text: await response.text(), headers: response.headers }
}

const keysOf = async (session: string): Promise<KeyRow[]> => {
  const response = await fetch(`${url}/__mock/keys`, { headers: withSession(session) })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  return (await response.json()) as KeyRow[]
}

const sessionNames = async (): Promise<string[]> => {
  const response = await fetch(`${url}/__mock/sessions`)
  expect(response.status).toBe(200)
  return (await response.json()) as string[]
}

describe('GET /__mock/sessions', () => {
  it('lists the default session first, then the sessions used, least recently used first', async () => {
    expect((await call('/v1/pets/1', 'live-alice', 'test-pro')).status).toBe(200)
    expect((await call('/v1/pets/1', 'live-bob', 'test-pro')).status).toBe(200)
    const names = await sessionNames()
    expect(names[0]).toBe('default')
    expect(names.slice(-2)).toEqual(['live-alice', 'live-bob'])
    expect(names.filter((name) => name === 'default')).toHaveLength(1)
    expect((await call('/v1/pets/1', 'live-alice', 'test-pro')).status).toBe(200)
    expect((await sessionNames()).slice(-2)).toEqual(['live-bob', 'live-alice'])
  })

  it('does not list a session nobody used', async () => {
    expect(await sessionNames()).not.toContain('live-never-used')
  })

  it('is not given a session by an admin call that was refused: a refused request changes nothing', async () => {
    const headers = { 'x-mock-session': 'live-refused', 'content-type': 'application/json' }
    const refused = await fetch(`${url}/__mock/scenario`, { method: 'PUT', headers, body: JSON.stringify({ name: 'no-such-scenario' }) })
    expect(refused.status).toBe(400)
    await refused.arrayBuffer()
    expect(await sessionNames()).not.toContain('live-refused')
    // The same call that succeeds makes the session, and one refused later leaves it as it was.
    const done = await fetch(`${url}/__mock/scenario`, { method: 'PUT', headers, body: JSON.stringify({ name: 'outage' }) })
    expect(done.status).toBe(200)
    await done.arrayBuffer()
    await (await fetch(`${url}/__mock/scenario`, { method: 'PUT', headers, body: '{' })).arrayBuffer()
    expect(await sessionNames()).toContain('live-refused')
    const current = await fetch(`${url}/__mock/scenario`, { headers })
    expect(await current.json()).toEqual({ scenario: 'outage' })
  })
})

describe('GET /__mock/keys', () => {
  it("shows the four default keys, each with the spec's plan limits, its quota whole", async () => {
    await freeze('keys-fresh')
    const keys = await keysOf('keys-fresh')
    expect(keys).toEqual([
      {
        key: 'test-free',
        plan: 'free',
        perMinute: 60,
        perDay: 1000,
        minuteRemaining: 60,
        minuteResetsAt: '2026-06-01T12:01:00.000Z',
        dayRemaining: 1000,
        dayResetsAt: '2026-06-02T00:00:00.000Z',
        bannedUntil: null,
      },
      expect.objectContaining({ key: 'test-pro', plan: 'pro', perMinute: 300, perDay: 10000, minuteRemaining: 300, dayRemaining: 10000 }),
      expect.objectContaining({
        key: 'test-business',
        plan: 'business',
        perMinute: 1000,
        perDay: 100000,
        minuteRemaining: 1000,
        dayRemaining: 100000,
      }),
      expect.objectContaining({
        key: 'test-enterprise',
        plan: 'enterprise',
        perMinute: 5000,
        perDay: 1000000,
        minuteRemaining: 5000,
        dayRemaining: 1000000,
      }),
    ])
  })

  /** Four counted requests of test-pro in `session` (three lists and a 404), and one with no valid key. */
  async function usePro(session: string): Promise<void> {
    await freeze(session)
    for (let i = 0; i < 3; i++) expect((await call('/v1/pets?limit=1', session, 'test-pro')).status).toBe(200)
    // A 404 counts too (spec decision 24); a 401 does not.
    expect((await call('/v1/pets/999999', session, 'test-pro')).status).toBe(404)
    expect((await call('/v1/pets', session, 'not-a-key')).status).toBe(401)
  }

  it('shows both remaining counts (minuteRemaining, dayRemaining) dropping for the key used', async () => {
    await usePro('keys-used')
    const keys = await keysOf('keys-used')
    expect(keys.find((key) => key.key === 'test-pro')).toMatchObject({ minuteRemaining: 296, dayRemaining: 9996, bannedUntil: null })
  })

  it('shows the quota whole for every other key, even for the same key in another session', async () => {
    await usePro('keys-used-only')
    const keys = await keysOf('keys-used-only')
    expect(keys.find((key) => key.key === 'test-free')).toMatchObject({ minuteRemaining: 60, dayRemaining: 1000 })
    // Another session's counters are its own.
    expect((await keysOf('keys-other')).find((key) => key.key === 'test-pro')?.dayRemaining).toBe(10000)
  })

  it('shows the minute quota back in full when the minute rolls over, the day still counted', async () => {
    await freeze('keys-roll')
    for (let i = 0; i < 2; i++) expect((await call('/v1/pets?limit=1', 'keys-roll', 'test-free')).status).toBe(200)
    await freeze('keys-roll', '2026-06-01T12:01:00Z')
    expect((await keysOf('keys-roll')).find((key) => key.key === 'test-free')).toMatchObject({
      minuteRemaining: 60,
      minuteResetsAt: '2026-06-01T12:02:00.000Z',
      dayRemaining: 998,
    })
  })

  it('shows bannedUntil 15 minutes after a Free key sends its 5th early retry after a 429', async () => {
    await freeze('keys-ban')
    for (let i = 0; i < 60; i++) expect((await call('/v1/pets?limit=1', 'keys-ban', 'test-free')).status).toBe(200)
    const limited = await call('/v1/pets?limit=1', 'keys-ban', 'test-free')
    expect(limited.status).toBe(429)
    expect(JSON.parse(limited.text)).toMatchObject({ code: 'rate_limited' })
    expect((await keysOf('keys-ban')).find((key) => key.key === 'test-free')).toMatchObject({ minuteRemaining: 0, bannedUntil: null })
    // The clock stands still, so each retry comes before Retry-After: the 5th is banned (spec decision 30).
    for (let i = 1; i <= 4; i++) {
      const early = await call('/v1/pets?limit=1', 'keys-ban', 'test-free')
      expect(JSON.parse(early.text)).toMatchObject({ code: 'rate_limited' })
    }
    const banned = await call('/v1/pets?limit=1', 'keys-ban', 'test-free')
    expect(banned.status).toBe(429)
    expect(JSON.parse(banned.text)).toMatchObject({ code: 'key_temporarily_banned' })
    expect(banned.headers.get('retry-after')).toBe('900')
    const free = (await keysOf('keys-ban')).find((key) => key.key === 'test-free')
    expect(free).toMatchObject({
      minuteRemaining: 0,
      dayRemaining: 940,
      bannedUntil: new Date(FROZEN_MS + 15 * 60_000).toISOString(),
    })
    expect(free?.bannedUntil).toBe('2026-06-01T12:15:30.000Z')
    // The other keys are not banned.
    expect((await keysOf('keys-ban')).filter((key) => key.bannedUntil !== null).map((key) => key.key)).toEqual(['test-free'])
  })

  it('shows the ban over once its 15 minutes have passed', async () => {
    await freeze('keys-ban-over')
    for (let i = 0; i < 66; i++) await call('/v1/pets?limit=1', 'keys-ban-over', 'test-free')
    expect((await keysOf('keys-ban-over')).find((key) => key.key === 'test-free')?.bannedUntil).toBe('2026-06-01T12:15:30.000Z')
    await freeze('keys-ban-over', '2026-06-01T12:15:30Z')
    expect((await keysOf('keys-ban-over')).find((key) => key.key === 'test-free')).toMatchObject({ bannedUntil: null, minuteRemaining: 60 })
  })
})

describe('GET /__mock/requests/:seq', () => {
  it('answers a whole entry: the headers both ways, Authorization redacted, with the response body', async () => {
    await freeze('entry-1')
    const body = '{"name":"Rex","categoryId":9007199254740993}'
    const created = await call('/v1/pets?trace=1', 'entry-1', 'test-free', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
      body,
    })
    expect(created.status).toBe(201)
    const response = await fetch(`${url}/__mock/requests/1`, { headers: withSession('entry-1') })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    const text = await response.text()
    // Exact integers beyond 2^53 stay exact in the entry's body.
    expect(text).toContain('"categoryId":9007199254740993')
    expect(text).not.toContain('test-free')
    const entry = JSON.parse(text) as Record<string, unknown>
    expect(entry).toMatchObject({
      seq: 1,
      time: '2026-06-01T12:00:30.000Z',
      method: 'POST',
      path: '/v1/pets',
      query: 'trace=1',
      key: 'free …free',
      plan: 'free',
      operation: 'createPet',
      status: 201,
      bodySize: Buffer.byteLength(body),
      bodyTruncated: false,
      bodyText: body,
      rateLimit: { limit: 60, remaining: 59, reset: FROZEN_MS / 1000 + 30 },
      responseBody: created.text,
      responseBodyTruncated: false,
    })
    expect(entry.durationMs).toEqual(expect.any(Number))
    expect(entry.requestHeaders).toMatchObject({
      authorization: 'Bearer …free',
      'content-type': 'application/json',
      'x-trace': 'abc',
      'x-mock-session': 'entry-1',
    })
    expect(entry.responseHeaders).toMatchObject({
      location: '/v1/pets/51',
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '59',
      'content-type': 'application/json',
    })
    expect(created.text).toBe('{"id":51,"name":"Rex","categoryId":9007199254740993}')
  })

  it("reads the entry of the request's session", async () => {
    expect((await call('/v1/pets/7', 'entry-2', 'test-pro')).status).toBe(200)
    expect((await call('/v1/pets/8', 'entry-3', 'test-pro')).status).toBe(200)
    const two = (await (await fetch(`${url}/__mock/requests/1`, { headers: withSession('entry-2') })).json()) as { path: string }
    const three = (await (await fetch(`${url}/__mock/requests/1?session=entry-3`)).json()) as { path: string }
    expect([two.path, three.path]).toEqual(['/v1/pets/7', '/v1/pets/8'])
  })

  it('answers an entry the journal does not hold with a 404 Error body', async () => {
    expect((await call('/v1/pets/1', 'entry-4', 'test-pro')).status).toBe(200)
    const body = await expectError(await fetch(`${url}/__mock/requests/2`, { headers: withSession('entry-4') }), 404)
    expect(body.message).toContain('2')
    await expectError(await fetch(`${url}/__mock/requests/999999999`, { headers: withSession('entry-4') }), 404)
    await expectError(await fetch(`${url}/__mock/requests/0`, { headers: withSession('entry-4') }), 404)
  })

  it('answers an entry the journal dropped with reset with 404', async () => {
    expect((await call('/v1/pets/1', 'entry-5', 'test-pro')).status).toBe(200)
    expect((await fetch(`${url}/__mock/requests/1`, { headers: withSession('entry-5') })).status).toBe(200)
    expect((await fetch(`${url}/__mock/reset`, { method: 'POST', headers: withSession('entry-5') })).status).toBe(204)
    await expectError(await fetch(`${url}/__mock/requests/1`, { headers: withSession('entry-5') }), 404)
  })

  it('answers a number that is not a whole number with a 400 Error body', async () => {
    for (const bad of ['abc', '-1', '1.5', '1e3', '12345678901234567890']) {
      const body = await expectError(await fetch(`${url}/__mock/requests/${bad}`), 400)
      expect(body.code, bad).toBe('invalid_admin_request')
    }
  })
})

describe('GET /__mock/requests.har', () => {
  it('downloads the journal as an attachment that parses as HAR 1.2', async () => {
    await freeze('har-1')
    expect((await call('/v1/pets?limit=2&status=available', 'har-1', 'test-pro')).status).toBe(200)
    const body = '{"name":"Rex","categoryId":9223372036854775807}'
    const created = await call('/v1/pets', 'har-1', 'test-pro', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(created.status).toBe(201)
    const response = await fetch(`${url}/__mock/requests.har`, { headers: withSession('har-1') })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('content-disposition')).toMatch(/^attachment;\s*filename="[^"]+\.har"$/)
    expect(response.headers.get('content-disposition')).toContain('har-1')
    const text = await response.text()
    expect(text).toContain('9223372036854775807')
    const har = JSON.parse(text) as {
      log: {
        version: string
        creator: { name: string; version: string }
        entries: Array<{
          startedDateTime: string
          request: { method: string; url: string; headers: Array<{ name: string; value: string }>; postData?: { text: string } }
          response: { status: number; content: { text: string } }
        }>
      }
    }
    expect(har.log.version).toBe('1.2')
    expect(har.log.creator.name).toBe('petstore-mock')
    expect(har.log.creator.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(har.log.entries.map((entry) => [entry.request.method, entry.request.url, entry.response.status])).toEqual([
      ['GET', `${url}/v1/pets?limit=2&status=available`, 200],
      ['POST', `${url}/v1/pets`, 201],
    ])
    expect(har.log.entries.map((entry) => entry.startedDateTime)).toEqual(['2026-06-01T12:00:30.000Z', '2026-06-01T12:00:30.000Z'])
    const post = har.log.entries[1]
    expect(post?.request.postData?.text).toBe(body)
    expect(post?.response.content.text).toBe(created.text)
    const authorization = post?.request.headers.find((header) => header.name === 'authorization')
    expect(authorization?.value).toMatch(/^Bearer …/)
    expect(authorization?.value).not.toContain('test')
    expect(text).not.toContain('Bearer test-pro')
  })

  /** The HAR of `session`, after one request in it. */
  async function harAfterOne(session: string): Promise<Response> {
    expect((await call('/v1/pets/3', session, 'test-pro')).status).toBe(200)
    return fetch(`${url}/__mock/requests.har?session=${session}`)
  }

  it('names the download after the session', async () => {
    const response = await harAfterOne('har-2')
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="petstore-mock-har-2.har"')
  })

  it("holds only that session's requests", async () => {
    const response = await harAfterOne('har-3')
    const har = (await response.json()) as { log: { entries: Array<{ request: { url: string } }> } }
    expect(har.log.entries.map((entry) => entry.request.url)).toEqual([`${url}/v1/pets/3`])
  })
})

describe('GET /__mock/ui', () => {
  it('answers an HTML page that loads /__mock/ui/panel/ui-main.js, under a CSP that forbids framing', async () => {
    const response = await fetch(`${url}/__mock/ui`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    const csp = response.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toMatch(/script-src 'self'/)
    expect(csp).not.toContain("'unsafe-eval'")
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    const page = await response.text()
    expect(page).toMatch(/^<!doctype html>/i)
    expect(page).toMatch(/<script[^>]+src="\/__mock\/ui\/panel\/ui-main\.js"/)
  })

  it('refuses a file name outside the panel with a 404 Error body', async () => {
    await expectError(await fetch(`${url}/__mock/ui/panel/in-page.js`), 404)
    await expectError(await fetch(`${url}/__mock/ui/panel/world-source.js`), 404)
    await expectError(await fetch(`${url}/__mock/ui/panel/..%2Fcli.js`), 404)
    await expectError(await fetch(`${url}/__mock/ui/admin/world-admin.js`), 404)
    await expectError(await fetch(`${url}/__mock/ui/server/cli.js`), 404)
  })

  it('serves the admin interface the panel loads: its declaration and its HTTP implementation, nothing else of src/admin', async () => {
    for (const file of ['operations.js', 'http-admin.js']) {
      const response = await fetch(`${url}/__mock/ui/admin/${file}`)
      expect(response.status, file).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^text\/javascript/)
    }
    expect(await (await fetch(`${url}/__mock/ui/admin/http-admin.js`)).text()).toContain('createHttpAdmin')
  })
})
