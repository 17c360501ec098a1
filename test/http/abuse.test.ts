/**
 * The standalone server under abuse (docs/spec-decisions.md, "Under abuse"): an admin API no other site can drive,
 * state imports that cannot break it, HTTP hygiene (HEAD, 408, hang-ups, pipelining), bodies that are not UTF-8, and a
 * journal read in pages. Loopback only.
 */
import { connect } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { adminAccess } from '../../src/server/admin/access.js'
import { auth, closeServers, INT64_MAX, postPet, rawRequest, startServer } from './support.js'

afterEach(closeServers)

/** A request with headers fetch will not set (Host), over node:http. */
const rawGet = (url: string, path: string, headers: Record<string, string>, method = 'GET') => rawRequest(url, path, { method, headers })

/**
 * Writes raw bytes on one connection and reads until the server closes it, or until the client hangs up after `ms`:
 * by default a ceiling for a busy machine that only a server that never closes reaches.
 */
function rawExchange(url: string, text: string | Buffer, ms = 20_000, pauseAfter?: number): Promise<string> {
  const { port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1')
    let received = ''
    const timer = setTimeout(() => socket.destroy(), ms)
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(received)
    })
    socket.on('error', () => undefined)
    if (pauseAfter === undefined) socket.write(text)
    else socket.write(text.slice(0, pauseAfter))
  })
}

const state = async (url: string) => (await fetch(`${url}/__mock/state`)).text()

describe('the admin API and other sites', () => {
  /** Reads the state, then asks for a reset, both from another site. */
  const fromAnotherSite = async (url: string) => {
    const read = await fetch(`${url}/__mock/state`, { headers: { origin: 'https://evil.example' } })
    const readBody: unknown = await read.json()
    const reset = await fetch(`${url}/__mock/reset`, { method: 'POST', headers: { origin: 'https://evil.example' } })
    return { read, readBody, reset }
  }

  it('refuses a request from another site (Origin) with 403 admin_forbidden', async () => {
    const { url } = await startServer()
    const { read, readBody, reset } = await fromAnotherSite(url)
    expect(read.status).toBe(403)
    expect(readBody).toEqual({ code: 'admin_forbidden', message: expect.stringContaining('evil.example'), status: 403 })
    expect(reset.status).toBe(403)
  })

  it('changes nothing for a request from another site', async () => {
    const { url } = await startServer()
    await postPet(url, { name: 'Kept', categoryId: 1 })
    const before = await state(url)
    await fromAnotherSite(url)
    expect(await state(url)).toBe(before)
  })

  it('refuses a DNS-rebinding request (a Host that is not loopback) with 403', async () => {
    const { url } = await startServer()
    const port = new URL(url).port
    const rebound = await rawGet(url, '/__mock/state', { host: `attacker.example:${port}` })
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body)).toMatchObject({ code: 'admin_forbidden', status: 403 })
    const reset = await rawGet(url, '/__mock/reset', { host: `attacker.example:${port}` }, 'POST')
    expect(reset.status).toBe(403)
  })

  it('serves requests without Origin (curl, SDKs), from the server itself or addressed to localhost', async () => {
    const { url } = await startServer()
    const port = new URL(url).port
    expect((await fetch(`${url}/__mock/state`)).status).toBe(200)
    expect((await fetch(`${url}/__mock/state`, { headers: { origin: url } })).status).toBe(200)
    expect((await rawGet(url, '/__mock/clock', { host: `localhost:${port}` })).status).toBe(200)
  })

  it("refuses what another site's page loads without an Origin (an image, a script): no session is created, none evicted", async () => {
    const { url } = await startServer({ maxSessions: 2 })
    const port = new URL(url).port
    const set = await fetch(`${url}/__mock/clock`, {
      method: 'POST',
      headers: { 'x-mock-session': 'run-42' },
      body: JSON.stringify({ set: '2030-01-01T00:00:00Z' }),
    })
    expect(set.status).toBe(200)
    // What <img src="http://127.0.0.1:PORT/__mock/scenario?session=x1"> on https://evil.test sends.
    const image = { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }
    for (const name of ['x1', 'x2', 'x3']) {
      const loaded = await rawGet(url, `/__mock/scenario?session=${name}`, image)
      expect(loaded.status).toBe(403)
      expect(JSON.parse(loaded.body)).toMatchObject({ code: 'admin_forbidden', status: 403 })
    }
    expect(await (await fetch(`${url}/__mock/sessions`)).json()).toEqual(['default', 'run-42'])
    const clock = (await (await fetch(`${url}/__mock/clock`, { headers: { 'x-mock-session': 'run-42' } })).json()) as { now: string }
    expect(clock.now).toBe('2030-01-01T00:00:00.000Z')
    // The server's own pages, and a link to the panel followed from another site, still work.
    const own = { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' }
    expect((await rawGet(url, '/__mock/scenario', own)).status).toBe(200)
    const link = { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }
    expect((await rawGet(url, '/__mock/ui', link)).status).toBe(200)
  })

  it('lets the admin token decide when there is one: the right token from any site, the Bearer scheme in any case', async () => {
    const { url } = await startServer({ adminToken: 's3cret' })
    const headers = { origin: 'https://qa-dashboard.example', authorization: 'bearer s3cret' }
    expect((await fetch(`${url}/__mock/state`, { headers })).status).toBe(200)
    const wrong = await fetch(`${url}/__mock/state`, { headers: { authorization: 'Bearer s3creT' } })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer')
  })

  it('serves its public paths (health, the OpenAPI document) to anyone, even from another site', async () => {
    const { url } = await startServer({ adminToken: 's3cret' })
    for (const path of ['/__mock/health', '/__mock/openapi.json']) {
      expect((await fetch(`${url}${path}`, { headers: { origin: 'https://evil.example' } })).status, path).toBe(200)
    }
  })

  const onEveryInterface = { token: false as const, host: '0.0.0.0' }

  it('keeps its public paths (health, the OpenAPI document) public on every interface', () => {
    const open = onEveryInterface
    expect(adminAccess('GET', '/__mock/health', { host: '10.0.0.5:4010' }, open)).toEqual({ ok: true })
    expect(adminAccess('GET', '/__mock/openapi.json', { host: '10.0.0.5:4010' }, open)).toEqual({ ok: true })
  })

  it('keeps the rest off on every interface without a token', () => {
    const open = onEveryInterface
    expect(adminAccess('GET', '/__mock/state', { host: '10.0.0.5:4010' }, open)).toMatchObject({ ok: false, code: 'admin_disabled' })
    expect(adminAccess('POST', '/__mock/health', { host: '10.0.0.5:4010' }, open)).toMatchObject({ ok: false })
  })
})

describe('state imports that would break the server', () => {
  const put = (url: string, body: unknown) =>
    fetch(`${url}/__mock/state`, { method: 'PUT', body: typeof body === 'string' ? body : JSON.stringify(body) })
  const base = { version: 1, pets: [{ id: 1, name: 'A', categoryId: 1 }], nextId: 2, rateLimits: {}, clock: { frozenAt: null, offset: 0 } }

  /** State imports that would break the server, each with the field its refusal names. */
  const breaking: [string, unknown, string][] = [
    [
      'a nextId past int64',
      `{"version":1,"pets":[],"nextId":9223372036854775809,"rateLimits":{},"clock":{"frozenAt":null,"offset":0}}`,
      'nextId',
    ],
    ['a nextId not above the largest id', { ...base, nextId: 1 }, 'nextId'],
    ['two pets with one id', { ...base, pets: [base.pets[0], { id: 1, name: 'B', categoryId: 1 }] }, 'pets[1].id'],
    ['a clock of 1e300', { ...base, clock: { frozenAt: 1e300, offset: 0 } }, 'clock.frozenAt'],
    ['a clock offset of 1e300', { ...base, clock: { frozenAt: null, offset: 1e300 } }, 'clock.offset'],
    [
      'a ban ending at 1e300',
      {
        ...base,
        rateLimits: {
          'test-free': { minuteStart: 0, minuteCount: 0, dayStart: 0, dayCount: 0, retryAt: 0, earlyRetries: 0, bannedUntil: 1e300 },
        },
      },
      'rateLimits.test-free.bannedUntil',
    ],
    ['an unknown scenario', { ...base, scenario: 'no-such-scenario' }, 'scenario'],
  ]

  it.each(breaking)('refuses %s with 400 naming the field', async (_what, body, field) => {
    const { url } = await startServer()
    const response = await put(url, body)
    expect(response.status).toBe(400)
    const error = (await response.json()) as { code: string; message: string }
    expect(error.code).toBe('invalid_admin_request')
    expect(error.message).toContain(field)
  })

  it.each(breaking)('changes nothing when it refuses %s', async (_what, body) => {
    const { url } = await startServer()
    const before = await state(url)
    await put(url, body)
    expect(await state(url)).toBe(before)
    expect((await fetch(`${url}/v1/pets`, { headers: auth('test-free') })).status).toBe(200)
  })

  it('gives the last int64 id, then answers 507 id_space_exhausted instead of an id outside int64', async () => {
    const { url } = await startServer()
    expect(await put(url, { ...base, pets: [], nextId: 0 }).then((r) => r.status)).toBe(400)
    const text = `{"version":1,"pets":[],"nextId":${INT64_MAX},"rateLimits":{},"clock":{"frozenAt":null,"offset":0}}`
    expect((await put(url, text)).status).toBe(204)
    const last = await postPet(url, { name: 'Last', categoryId: 1 })
    expect(last.status).toBe(201)
    expect(await last.text()).toContain(`"id":${INT64_MAX}`)
    const past = await postPet(url, { name: 'Past', categoryId: 1 })
    expect(past.status).toBe(507)
    expect(await past.json()).toMatchObject({ code: 'id_space_exhausted', status: 507 })
    expect((await fetch(`${url}/__mock/clock`)).status).toBe(200)
  })
})

/** The Error body of a raw HTTP answer (its text after the blank line). */
const errorOf = (received: string): unknown => JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))

describe('HTTP hygiene', () => {
  it('answers an Expect other than 100-continue as if it had none: a request without a key gets the 401 Error', async () => {
    const { url } = await startServer()
    const received = await rawExchange(url, 'GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n')
    expect(received).toMatch(/^HTTP\/1\.1 401 /)
    expect(errorOf(received)).toMatchObject({ code: 'unauthorized', status: 401 })
  })

  it('answers an HTTP/1.1 request without Host 400 bad_request with the Error body (RFC 9112, section 3.2)', async () => {
    const { url } = await startServer()
    const received = await rawExchange(url, 'GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer test-pro\r\n\r\n')
    expect(received).toMatch(/^HTTP\/1\.1 400 /)
    expect(received.toLowerCase()).toContain('content-type: application/json')
    expect(errorOf(received)).toMatchObject({ code: 'bad_request', status: 400 })
  })

  it('answers 400 bad_request to two Host lines, and to an absolute-form target naming another authority (RFC 9112, 3.2)', async () => {
    const { url } = await startServer()
    const here = new URL(url).host
    for (const text of [
      `GET /__mock/state HTTP/1.1\r\nHost: ${here}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
      `GET /__mock/state HTTP/1.1\r\nHost: evil.example\r\nHost: ${here}\r\nConnection: close\r\n\r\n`,
      `GET /v1/pets HTTP/1.1\r\nHost: ${here}\r\nhost: ${here}\r\nAuthorization: Bearer test-pro\r\nConnection: close\r\n\r\n`,
      `GET http://evil.example/__mock/state HTTP/1.1\r\nHost: ${here}\r\nConnection: close\r\n\r\n`,
      `GET http://${here}/__mock/state HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
    ]) {
      const received = await rawExchange(url, text)
      expect(received).toMatch(/^HTTP\/1\.1 400 /)
      expect(errorOf(received)).toMatchObject({ code: 'bad_request', status: 400 })
      expect(received).not.toContain('"sessions"')
    }
    // One authority in both, or the path alone: answered as ever.
    const same = await rawExchange(url, `GET http://${here}/__mock/clock HTTP/1.1\r\nHost: ${here}\r\nConnection: close\r\n\r\n`)
    expect(same).toMatch(/^HTTP\/1\.1 200 /)
    const api = await rawExchange(
      url,
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: ${here}\r\nAuthorization: Bearer test-pro\r\nConnection: close\r\n\r\n`,
    )
    expect(api).toMatch(/^HTTP\/1\.1 200 /)
  })

  it('answers CONNECT 400 bad_request with the Error body instead of closing the connection silently', async () => {
    const { url } = await startServer()
    const received = await rawExchange(url, 'CONNECT /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    expect(received).toMatch(/^HTTP\/1\.1 400 /)
    expect(errorOf(received)).toMatchObject({ code: 'bad_request', status: 400 })
  })

  it('answers a request that does not arrive in time with 408, its Error body naming request_timeout', async () => {
    const { url } = await startServer({ requestTimeoutMs: 300 })
    const text = 'POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"name":'
    const received = await rawExchange(url, text)
    expect(received).toMatch(/^HTTP\/1\.1 408 /)
    expect(received).toContain('"code":"request_timeout"')
  })

  it('logs a client that hung up mid-body as aborted, without a stack or a 500', async () => {
    const lines: string[] = []
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      const { url } = await startServer({ log: 'json', write: (line) => lines.push(line) })
      const text = 'POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-pro\r\nContent-Length: 100\r\n\r\n{"name":"x"'
      // The client hangs up 200 ms after sending part of the body.
      await rawExchange(url, text, 200)
      await expect
        .poll(() => lines.map((line) => JSON.parse(line) as { status: number; note: string | null }))
        .toContainEqual(expect.objectContaining({ status: 0, note: 'aborted' }))
      expect(lines.join('\n')).not.toContain('"status":500')
      expect(errors).not.toHaveBeenCalled()
    } finally {
      errors.mockRestore()
    }
  })

  it('answers each pipelined request in order: a valid POST, then garbage', async () => {
    const { url } = await startServer()
    const body = '{"name":"Piped","categoryId":1}'
    const text =
      `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-pro\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
      'GARBAGE \x01\x02 NOT HTTP\r\n\r\n'
    const received = await rawExchange(url, text)
    const created = received.indexOf('HTTP/1.1 201 ')
    const refused = received.indexOf('HTTP/1.1 400 ')
    expect(created).toBeGreaterThanOrEqual(0)
    expect(refused).toBeGreaterThan(created)
    expect(received).toContain('"name":"Piped"')
  })

  /** Creates a pet whose body is not UTF-8. */
  const postNotUtf8 = (url: string) => {
    const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('","categoryId":1}')])
    return fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: auth('test-pro', { 'content-type': 'application/json' }),
      body,
    })
  }

  it('answers a body that is not UTF-8 with 400 invalid_body', async () => {
    const { url } = await startServer()
    const response = await postNotUtf8(url)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'invalid_body', status: 400 })
  })

  it('stores nothing from a body that is not UTF-8', async () => {
    const { url } = await startServer()
    const before = await state(url)
    await postNotUtf8(url)
    const after = JSON.parse(await state(url)) as { pets: unknown[]; nextId: number }
    const was = JSON.parse(before) as { pets: unknown[]; nextId: number }
    expect([after.pets.length, after.nextId]).toEqual([was.pets.length, was.nextId])
  })

  it('answers a JSON body without Content-Type with 400 unsupported_media_type, or 415 when asked to', async () => {
    const raw = (url: string) => {
      const body = '{"name":"NoType","categoryId":1}'
      return rawExchange(
        url,
        `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-pro\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      )
    }
    const { url } = await startServer()
    const spec = await raw(url)
    expect(spec).toMatch(/^HTTP\/1\.1 400 /)
    expect(spec).toContain('"code":"unsupported_media_type"')
    const http = await startServer({ mediaTypeErrorStatus: 415 })
    expect(await raw(http.url)).toMatch(/^HTTP\/1\.1 415 [\s\S]*"status":415/)
  })
})

describe('the journal over HTTP', () => {
  it('reads the journal in pages: the newest 100 by default, a Link to the older ones', async () => {
    const { url } = await startServer()
    const session = { 'x-mock-session': 'pages' }
    for (let i = 0; i < 105; i++) await fetch(`${url}/v1/pets/${i}`, { headers: auth('test-enterprise', session) })
    const first = await fetch(`${url}/__mock/requests`, { headers: session })
    const entries = (await first.json()) as { seq: number }[]
    expect(entries).toHaveLength(100)
    expect(entries.at(-1)?.seq).toBe(105)
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1]
    expect(next).toBe('/__mock/requests?before=6&limit=100')
    const rest = (await (await fetch(`${url}${next}`, { headers: session })).json()) as { seq: number }[]
    expect(rest.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5])
    expect((await fetch(`${url}/__mock/requests?limit=0`, { headers: session })).status).toBe(400)
  })

  // Ten bodies show it: kept whole they would hold 9 MiB, four times the bound asserted below.
  it('stays answering after 10 rejected 0.9 MiB bodies, keeping 16 KiB of each', async () => {
    const { url } = await startServer()
    const big = `{"name":"${'x'.repeat(900 * 1024)}"}`
    for (let i = 0; i < 10; i++) expect((await postPet(url, big)).status).toBe(400)
    const entries = (await (await fetch(`${url}/__mock/requests?limit=5`)).json()) as {
      bodySize: number
      bodyTruncated: boolean
      body: string
    }[]
    expect(entries).toHaveLength(5)
    for (const entry of entries) {
      expect(entry.bodyTruncated).toBe(true)
      expect(entry.bodySize).toBe(big.length)
      expect(entry.body.length).toBe(16 * 1024)
    }
    const health = (await (await fetch(`${url}/__mock/health`)).json()) as { journal: { bytes: number; maxBytes: number } }
    expect(health.journal.bytes).toBeLessThan(2 * 1024 * 1024)
  })
})
