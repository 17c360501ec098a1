import { describe, expect, it } from 'vitest'
import { toHar } from '../../src/journal/har.js'
import { BODY_PREFIX_CHARS } from '../../src/journal/journal.js'
import { createWorld, type World } from '../../src/world/create-world.js'

const NOON = '2026-06-01T12:00:00Z'
const ORIGIN = 'http://127.0.0.1:4010'
const INT64_MAX = '9223372036854775807'

type Json = Record<string, unknown>

const harOf = (world: World): { log: Json & { entries: Json[] } } =>
  toHar(world.journal.all(), { origin: ORIGIN, version: '9.8.7' }) as unknown as { log: Json & { entries: Json[] } }

const post = (world: World, body: string, key = 'test-free', headers: Record<string, string> = {}) =>
  world.fetch('/v1/pets', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body,
  })

const get = (world: World, path: string, key = 'test-free', headers: Record<string, string> = {}) =>
  world.fetch(path, { headers: { authorization: `Bearer ${key}`, ...headers } })

const bytes = (text: string): number => new TextEncoder().encode(text).length

/**
 * The problems of a HAR log, from the HAR 1.2 spec's required fields and rules
 * (http://www.softwareishard.com/blog/har-12-spec/): an empty list means it is a valid HAR 1.2 log.
 */
function harProblems(har: unknown): string[] {
  const problems: string[] = []
  const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
  const need = (object: unknown, where: string, fields: Record<string, 'string' | 'number' | 'object' | 'array'>): Json => {
    if (!isObject(object)) {
      problems.push(`${where} is not an object`)
      return {}
    }
    for (const [name, type] of Object.entries(fields)) {
      const value = object[name]
      const ok =
        type === 'array'
          ? Array.isArray(value)
          : type === 'object'
            ? isObject(value)
            : typeof value === type && (type !== 'number' || Number.isFinite(value))
      if (!ok) problems.push(`${where}.${name} must be a ${type}, got ${JSON.stringify(value)}`)
    }
    return object
  }
  const optional = (object: Json, where: string, fields: Record<string, 'string' | 'number'>) => {
    for (const [name, type] of Object.entries(fields))
      if (object[name] !== undefined && typeof object[name] !== type) problems.push(`${where}.${name} must be a ${type} when present`)
  }
  const pairs = (list: unknown, where: string) => {
    if (!Array.isArray(list)) return
    list.forEach((item, i) => {
      need(item, `${where}[${i}]`, { name: 'string', value: 'string' })
    })
  }
  const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

  const root = need(har, 'har', { log: 'object' })
  const log = need(root.log, 'log', { version: 'string', creator: 'object', entries: 'array' })
  if (log.version !== undefined && log.version !== '1.2') problems.push(`log.version must be "1.2", got ${String(log.version)}`)
  need(log.creator, 'log.creator', { name: 'string', version: 'string' })
  if (log.pages !== undefined && !Array.isArray(log.pages)) problems.push('log.pages must be an array when present')
  optional(log, 'log', { comment: 'string' })
  const entries = Array.isArray(log.entries) ? (log.entries as unknown[]) : []
  entries.forEach((item, i) => {
    const at = `log.entries[${i}]`
    const entry = need(item, at, {
      startedDateTime: 'string',
      time: 'number',
      request: 'object',
      response: 'object',
      cache: 'object',
      timings: 'object',
    })
    optional(entry, at, { pageref: 'string', serverIPAddress: 'string', connection: 'string', comment: 'string' })
    if (
      typeof entry.startedDateTime === 'string' &&
      (!ISO_8601.test(entry.startedDateTime) || Number.isNaN(Date.parse(entry.startedDateTime)))
    )
      problems.push(`${at}.startedDateTime is not ISO 8601: ${entry.startedDateTime}`)

    const request = need(entry.request, `${at}.request`, {
      method: 'string',
      url: 'string',
      httpVersion: 'string',
      cookies: 'array',
      headers: 'array',
      queryString: 'array',
      headersSize: 'number',
      bodySize: 'number',
    })
    if (typeof request.url === 'string') {
      if (!/^https?:\/\//.test(request.url)) problems.push(`${at}.request.url is not absolute: ${request.url}`)
      if (request.url.includes('#')) problems.push(`${at}.request.url must not include a fragment`)
    }
    pairs(request.cookies, `${at}.request.cookies`)
    pairs(request.headers, `${at}.request.headers`)
    pairs(request.queryString, `${at}.request.queryString`)
    if (request.postData !== undefined) {
      const postData = need(request.postData, `${at}.request.postData`, { mimeType: 'string' })
      if (postData.text === undefined && postData.params === undefined) problems.push(`${at}.request.postData needs text or params`)
      optional(postData, `${at}.request.postData`, { text: 'string' })
      if (postData.params !== undefined) {
        if (!Array.isArray(postData.params)) problems.push(`${at}.request.postData.params must be an array`)
        else
          postData.params.forEach((param, j) => {
            need(param, `${at}.request.postData.params[${j}]`, { name: 'string' })
          })
      }
    }

    const response = need(entry.response, `${at}.response`, {
      status: 'number',
      statusText: 'string',
      httpVersion: 'string',
      cookies: 'array',
      headers: 'array',
      content: 'object',
      redirectURL: 'string',
      headersSize: 'number',
      bodySize: 'number',
    })
    pairs(response.cookies, `${at}.response.cookies`)
    pairs(response.headers, `${at}.response.headers`)
    const content = need(response.content, `${at}.response.content`, { size: 'number', mimeType: 'string' })
    optional(content, `${at}.response.content`, { text: 'string', encoding: 'string', compression: 'number', comment: 'string' })

    const timings = need(entry.timings, `${at}.timings`, { send: 'number', wait: 'number', receive: 'number' })
    for (const name of ['send', 'wait', 'receive'])
      if (typeof timings[name] === 'number' && (timings[name] as number) < 0) problems.push(`${at}.timings.${name} must not be negative`)
    const sum = ['blocked', 'dns', 'connect', 'send', 'wait', 'receive']
      .map((name) => timings[name])
      .filter((value): value is number => typeof value === 'number' && value !== -1)
      .reduce((a, b) => a + b, 0)
    if (typeof entry.time === 'number' && Math.abs(entry.time - sum) > 1e-6)
      problems.push(`${at}.time (${entry.time}) must equal the sum of its timings (${sum})`)
  })
  return problems
}

/** A world that answered one of each kind of exchange: 200 with a query, 201, 400, 401, 404, 429. */
async function busyWorld(): Promise<World> {
  const world = createWorld({ clock: NOON })
  await get(world, '/v1/pets?limit=2&status=available')
  await post(world, '{"name":"Rex","categoryId":9007199254740993}')
  await post(world, '{"categoryId":1}')
  await world.fetch('/v1/pets')
  await get(world, '/v1/pets/999999')
  // Four counted so far (the 401 is not): 56 more use up the Free minute, the next is limited.
  for (let i = 0; i < 56; i++) await get(world, '/v1/pets?limit=1')
  await get(world, '/v1/pets?limit=1')
  return world
}

describe('toHar', () => {
  it('writes a HAR 1.2 log with the creator', async () => {
    const world = await busyWorld()
    const har = harOf(world)
    expect(har.log.version).toBe('1.2')
    expect(har.log.creator).toEqual({ name: 'petstore-mock', version: '9.8.7' })
  })

  it('writes one entry per journal entry', async () => {
    const world = await busyWorld()
    const har = harOf(world)
    expect(har.log.entries).toHaveLength(world.journal.all().length)
    expect(har.log.entries.length).toBe(62)
  })

  it('passes the HAR 1.2 required-field check for exchanges of every status (200, 201, 400, 401, 404, 429)', async () => {
    const world = await busyWorld()
    const har = harOf(world)
    const statuses = new Set(har.log.entries.map((entry) => (entry.response as Json).status))
    expect([...statuses].sort()).toEqual([200, 201, 400, 401, 404, 429])
    expect(harProblems(har)).toEqual([])
  })

  it('the required-field check catches a broken log', () => {
    const broken = {
      log: {
        version: '1.2',
        creator: { name: 'x' },
        entries: [
          { startedDateTime: 'yesterday', time: 5, request: {}, response: {}, cache: {}, timings: { send: 0, wait: 1, receive: 0 } },
        ],
      },
    }
    const problems = harProblems(broken)
    expect(problems).toContain('log.creator.version must be a string, got undefined')
    expect(problems).toContain('log.entries[0].startedDateTime is not ISO 8601: yesterday')
    expect(problems).toContain('log.entries[0].request.url must be a string, got undefined')
    expect(problems).toContain('log.entries[0].time (5) must equal the sum of its timings (1)')
  })

  it('writes an empty journal as a valid log without entries', () => {
    const har = harOf(createWorld({ clock: NOON }))
    expect(har.log.entries).toEqual([])
    expect(harProblems(har)).toEqual([])
  })

  it('dates each entry on the world clock, in ISO 8601', async () => {
    const world = createWorld({ clock: NOON })
    await get(world, '/v1/pets/1')
    world.clock.advance(90_500)
    await get(world, '/v1/pets/2')
    expect(harOf(world).log.entries.map((entry) => entry.startedDateTime)).toEqual(['2026-06-01T12:00:00.000Z', '2026-06-01T12:01:30.500Z'])
  })

  /** The HAR request of a GET with a query. */
  async function requestWithQuery(): Promise<Json> {
    const world = createWorld({ clock: NOON })
    await get(world, '/v1/pets?limit=2&status=available')
    return harOf(world).log.entries[0]?.request as Json
  }

  it('writes a GET at its absolute URL with its query, without a body', async () => {
    const request = await requestWithQuery()
    expect(request.method).toBe('GET')
    expect(request.url).toBe(`${ORIGIN}/v1/pets?limit=2&status=available`)
    expect(request.postData).toBeUndefined()
    expect(request.bodySize).toBe(0)
  })

  it('writes the query as name/value pairs', async () => {
    const request = await requestWithQuery()
    expect(request.queryString).toEqual([
      { name: 'limit', value: '2' },
      { name: 'status', value: 'available' },
    ])
  })

  /** The HAR of a GET sent with a trace header and a cookie; the headers of its one entry, both ways. */
  async function harWithCookie() {
    const world = createWorld({ clock: NOON })
    await get(world, '/v1/pets/1', 'test-free', { 'x-trace': 'abc', cookie: 'sid=0123456789abcdef' })
    const har = harOf(world)
    const entry = har.log.entries[0] as Json
    const requestHeaders = (entry.request as Json).headers as Array<{ name: string; value: string }>
    const responseHeaders = (entry.response as Json).headers as Array<{ name: string; value: string }>
    return { har, requestHeaders, responseHeaders }
  }

  it('writes the headers of either side as name/value pairs', async () => {
    const { requestHeaders, responseHeaders } = await harWithCookie()
    expect(requestHeaders).toContainEqual({ name: 'x-trace', value: 'abc' })
    expect(responseHeaders).toContainEqual({ name: 'x-ratelimit-limit', value: '60' })
    expect(responseHeaders).toContainEqual({ name: 'x-ratelimit-remaining', value: '59' })
    expect(responseHeaders).toContainEqual({ name: 'x-ratelimit-reset', value: String(Date.parse(NOON) / 1000 + 60) })
  })

  it('redacts the secret headers: Authorization, cookies', async () => {
    const { har, requestHeaders } = await harWithCookie()
    expect(requestHeaders).toContainEqual({ name: 'authorization', value: 'Bearer …free' })
    const cookie = requestHeaders.find((header) => header.name === 'cookie')
    expect(cookie?.value).not.toContain('0123456789ab')
    const text = JSON.stringify(har)
    expect(text).not.toContain('test-free')
    expect(text).not.toContain('0123456789abcdef')
  })

  it('keeps a POST body with integers beyond 2^53 exactly', async () => {
    const world = createWorld({ clock: NOON })
    const body = '{"name":"Rex","categoryId":9007199254740993}'
    const max = `{"name":"Max","categoryId":${INT64_MAX}}`
    expect((await post(world, body)).status).toBe(201)
    expect((await post(world, max)).status).toBe(201)
    const [first, second] = harOf(world).log.entries.map((entry) => entry.request as Json)
    expect(first?.postData).toEqual({ mimeType: 'application/json', params: [], text: body })
    expect(second?.postData).toMatchObject({ text: max })
    expect(first?.bodySize).toBe(bytes(body))
  })

  it('writes the POST body as it was sent, with its own spacing, its own number spelling', async () => {
    const world = createWorld({ clock: NOON })
    const body = '{ "name": "Rex",\n  "categoryId": 1.0 }'
    expect((await post(world, body)).status).toBe(201)
    const request = harOf(world).log.entries[0]?.request as Json
    expect((request.postData as Json).text).toBe(body)
  })

  it('writes a POST body that is not JSON as it was sent', async () => {
    const world = createWorld({ clock: NOON })
    const body = '{"name":'
    expect((await post(world, body)).status).toBe(400)
    const request = harOf(world).log.entries[0]?.request as Json
    expect(request.bodySize).toBe(8)
    expect((request.postData as Json).text).toBe(body)
  })

  it('writes each response as the client received it: status, MIME type, body text', async () => {
    const world = createWorld({ clock: NOON })
    const answers = [
      await post(world, '{"name":"Rex","categoryId":9007199254740993}'),
      await post(world, '{"categoryId":1}'),
      await world.fetch('/v1/pets'),
      await get(world, '/v1/pets/51'),
    ]
    const received = await Promise.all(answers.map(async (answer) => ({ status: answer.status, text: await answer.text() })))
    expect(received.map((answer) => answer.status)).toEqual([201, 400, 401, 200])
    expect(received[0]?.text).toBe('{"id":51,"name":"Rex","categoryId":9007199254740993}')
    const responses = harOf(world).log.entries.map((entry) => entry.response as Json)
    expect(responses.map((response) => [response.status, response.statusText])).toEqual([
      [201, 'Created'],
      [400, 'Bad Request'],
      [401, 'Unauthorized'],
      [200, 'OK'],
    ])
    responses.forEach((response, i) => {
      expect((response.content as Json).text).toBe(received[i]?.text)
      expect((response.content as Json).mimeType).toBe(answers[i]?.headers.get('content-type'))
    })
    expect(responses[0]?.headers).toContainEqual({ name: 'location', value: '/v1/pets/51' })
  })

  it('gives body sizes in bytes, as HAR asks, for text beyond ASCII', async () => {
    const world = createWorld({ clock: NOON })
    const body = '{"name":"Zoë 🐕","categoryId":1}'
    const answer = await post(world, body)
    const text = await answer.text()
    const entry = harOf(world).log.entries[0] as Json
    expect((entry.request as Json).bodySize).toBe(bytes(body))
    expect(((entry.response as Json).content as Json).size).toBe(bytes(text))
    expect((entry.response as Json).bodySize).toBe(bytes(text))
  })

  it('writes a 429 as Too Many Requests with its Retry-After header', async () => {
    const world = createWorld({ clock: NOON })
    for (let i = 0; i < 61; i++) await get(world, '/v1/pets?limit=1')
    const last = harOf(world).log.entries.at(-1)?.response as Json
    expect(last.status).toBe(429)
    expect(last.statusText).toBe('Too Many Requests')
    expect(last.headers).toContainEqual({ name: 'retry-after', value: '60' })
    expect(JSON.parse(String((last.content as Json).text))).toMatchObject({ code: 'rate_limited', status: 429 })
  })

  it('says in a comment when the journal kept only the first 16 KiB of a body', async () => {
    // A name that long needs the option: 1,000 characters by default (docs/spec-decisions.md row 4).
    const world = createWorld({ clock: NOON, maxNameLength: 20_000 })
    const name = 'n'.repeat(20_000)
    const body = `{"name":"${name}","categoryId":1}`
    const answer = await post(world, body)
    expect(answer.status).toBe(201)
    const sent = await answer.text()
    const entry = harOf(world).log.entries[0] as Json
    const request = entry.request as Json
    expect(request.bodySize).toBe(bytes(body))
    expect((request.postData as Json).text).toBe(body.slice(0, BODY_PREFIX_CHARS))
    const content = (entry.response as Json).content as Json
    expect(content.text).toBe(sent.slice(0, BODY_PREFIX_CHARS))
    expect(entry.comment).toMatch(/request body truncated/)
    expect(entry.comment).toMatch(/response body truncated/)
    expect(harProblems({ log: { version: '1.2', creator: { name: 'a', version: 'b' }, entries: [entry] } })).toEqual([])
  })

  it('leaves the comment of whole bodies free of truncation notes', async () => {
    const world = createWorld({ clock: NOON })
    await post(world, '{"name":"Rex","categoryId":1}')
    const entry = harOf(world).log.entries[0] as Json
    expect(String(entry.comment ?? '')).not.toMatch(/truncated/)
  })

  it('gives each entry a time equal to the sum of its timings, none negative', async () => {
    const world = createWorld({ clock: NOON })
    await get(world, '/v1/pets?limit=100')
    const entry = harOf(world).log.entries[0] as Json
    const timings = entry.timings as Record<string, number>
    expect(timings.send).toBeGreaterThanOrEqual(0)
    expect(timings.wait).toBeGreaterThanOrEqual(0)
    expect(timings.receive).toBeGreaterThanOrEqual(0)
    expect(entry.time).toBeCloseTo((timings.send ?? 0) + (timings.wait ?? 0) + (timings.receive ?? 0), 6)
    expect(entry.time).toBe(world.journal.all()[0]?.durationMs)
  })
})
