/**
 * The fuzz suite ("Trustworthy under abuse": docs/spec-decisions.md, "Under abuse"), run unchanged against any host
 * reachable with `fetch`: random requests never answer 5xx but the documented 501, answer every 4xx with the Error body
 * `{ code, message, status }`, and leave the pets and the next id as they were whenever they are refused; a valid
 * NewPet is created only when sent as uncompressed UTF-8 JSON.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { ERRORS } from '../../src/index.js'

export interface FuzzTarget {
  /** A fetch function and the origin the API's paths are relative to (`https://api.petstore.test`). */
  fetch: typeof fetch
  origin: string
  /** The pets and the next id of the world under test: what a refused request must not change (counters and the clock may). */
  petState(): Promise<{ pets: { id: bigint; name: string; categoryId: bigint }[]; nextId: bigint }>
}

/** High limits, so that most requests get past the rate limiter and reach the routes. */
export const FUZZ_KEYS = ['test-free', 'test-pro', 'test-business', 'test-enterprise'].map((key) => ({
  key,
  plan: 'enterprise' as const,
  limits: { perMinute: 1_000_000, perDay: 10_000_000 },
}))

const utf8 = new TextEncoder()

// Weighted to the methods of the API, so that most requests reach an operation and its checks.
const method = fc.oneof(
  { weight: 4, arbitrary: fc.constant('POST') },
  { weight: 3, arbitrary: fc.constant('GET') },
  { weight: 3, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') },
)

const petId = fc.oneof(
  fc.constantFrom('1', '50', '51', '0', '-1', '007', '9223372036854775807', '9223372036854775808', '-9223372036854775809', '1e3'),
  fc.constantFrom('1.5', '0x10', 'abc', '%ZZ', '%00', '%2F', '%31', '😀', ' 1', '99999999999999999999999999999999'),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
)

const path = fc.oneof(
  { weight: 6, arbitrary: fc.constant('/v1/pets') },
  { weight: 3, arbitrary: petId.map((id) => `/v1/pets/${id}`) },
  { weight: 1, arbitrary: fc.constantFrom('/v1/store/orders', '/v1/store', '/v1/store/orders/1', '/v1', '/v1/', '/v1/pets/') },
  { weight: 1, arbitrary: fc.constantFrom('/v1/pets/1/photos', '/v1/unknown', '/v1//pets', '/v2/pets', '/v1/PETS', '/v1/pets;x') },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((segment) => `/v1/${encodeURIComponent(segment)}`) },
)

const queryValue = fc.oneof(
  fc.constantFrom('1', '20', '100', '0', '101', '-1', '1.5', '1e2', ' 5', 'abc', 'available', 'pending', 'sold', 'SOLD', ''),
  fc.string({ maxLength: 6 }),
)

const query = fc.oneof(
  fc
    .array(fc.tuple(fc.constantFrom('limit', 'status', 'offset', 'x', ''), queryValue), { maxLength: 3 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&')}`)),
  fc.constantFrom('?', '?%ZZ', '?&&', '?limit', '?=1', '?limit=1&limit=2', '?status=sold&status=sold'),
)

const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('Bearer test-free', 'Bearer test-pro', 'Bearer test-business', 'Bearer test-enterprise') },
  { weight: 2, arbitrary: fc.constantFrom('bearer test-pro', 'BEARER test-free', 'bearer test-enterprise') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(undefined, '', 'Bearer', 'Basic dGVzdDp0ZXN0', 'Bearer test-pro extra', 'Bearer nope', 'test-pro'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
)

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(undefined, 'text/plain', 'application/json; charset=latin1', 'application/json; charset=ISO-8859-1'),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('application/xml', 'application/x-www-form-urlencoded', 'Application/JSON', 'application/jsonx'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
)

const contentEncoding = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'GZIP', 'gzip, identity') },
)

// Valid NewPets weigh most, so that some requests create pets and the state moves between refusals.
const text = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      '{"name":"x","categoryId":1}',
      '{"name":"x","categoryId":1,"status":"sold"}',
      '{"name":"x","categoryId":1,"id":7}',
    ),
  },
  fc.constantFrom('{"name":"x","categoryId":9223372036854775807}', '{"name":"x","categoryId":9223372036854775808}', '9223372036854775808'),
  fc.constantFrom('{"name":"x","categoryId":-9223372036854775809}', '{"name":"x","categoryId":1e400}', '{"name":"x","categoryId":1.5}'),
  fc.constantFrom('{', '{"name":"x",', '', '   ', 'null', '"x"', '[]', '[{"name":"x","categoryId":1}]', '{"name":"x","status":"lost"}'),
  fc.constantFrom('\uFEFF{"name":"x","categoryId":1}', '{"name":"\\ud800","categoryId":1}', '{"name":"x","categoryId":"1"}'),
  fc
    .record({ name: fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), categoryId: fc.oneof(fc.integer(), fc.double(), fc.string()) })
    .map((value) => JSON.stringify(value)),
  fc.json({ maxDepth: 2 }),
  fc.string({ maxLength: 50 }),
)

/** Bytes that are not UTF-8: Latin-1 text, a lone 0xFF, an overlong '/', a UTF-16 surrogate, a cut sequence. */
const notUtf8 = fc.oneof(
  fc
    .constantFrom([0xeb], [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xff, 0xfe])
    .map((bad) => Uint8Array.from([...utf8.encode('{"name":"Zo'), ...bad, ...utf8.encode('","categoryId":1}')])),
  fc.uint8Array({ minLength: 1, maxLength: 24 }).map((bytes) => Uint8Array.from([0xff, ...bytes])),
)

const body = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: fc.tuple(text, fc.boolean()).map(([value, asBytes]) => (asBytes ? utf8.encode(value) : value)) },
  { weight: 2, arbitrary: notUtf8 },
)

const exchange = fc.record({ method, path, query, authorization, contentType, contentEncoding, body })
type Exchange = typeof exchange extends fc.Arbitrary<infer T> ? T : never

// Characters fetch refuses in a header value; a real client could not send them either.
const isHeaderSafe = (value: string) => !/[\0\r\n]/.test(value) && value === value.trim() && /^[\t\x20-\x7e\x80-\xff]*$/.test(value)

function requestInit({ method, authorization, contentType, contentEncoding, body }: Exchange): RequestInit {
  const headers: Record<string, string> = {}
  if (authorization !== undefined && isHeaderSafe(authorization)) headers['authorization'] = authorization
  if (contentType !== undefined && isHeaderSafe(contentType)) headers['content-type'] = contentType
  if (contentEncoding !== undefined) headers['content-encoding'] = contentEncoding
  const init: RequestInit = { method, headers }
  if (body !== undefined && method !== 'GET' && method !== 'HEAD') init.body = body
  return init
}

interface Answer {
  status: number
  contentType: string | null
  text: string
  label: string
}

async function send(target: FuzzTarget, request: Exchange): Promise<Answer> {
  const response = await target.fetch(`${target.origin}${request.path}${request.query}`, requestInit(request))
  const text = await response.text()
  const { status } = response
  const label = `${request.method} ${request.path}${request.query} -> ${status} ${text.slice(0, 200)}`
  return { status, contentType: response.headers.get('content-type'), text, label }
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON'] as const
const asText = fc.constantFrom('string' as const, 'utf-8' as const)

/** One way to send a valid NewPet, and what it must get: created, or refused with the code. */
const delivery = fc.oneof(
  fc.record({
    contentType: fc.constantFrom(...JSON_TYPES),
    contentEncoding: fc.constantFrom(undefined, 'identity'),
    bytes: asText,
    expected: fc.constant('created' as const),
  }),
  fc.record({
    contentType: fc.constantFrom(...JSON_TYPES),
    contentEncoding: fc.constantFrom('gzip', 'deflate', 'br', 'GZIP'),
    bytes: asText,
    expected: fc.constant('unsupported_media_type' as const),
  }),
  fc.record({
    contentType: fc.constantFrom(
      'application/json; charset=latin1',
      'application/json; charset=ISO-8859-1',
      'application/json; charset=utf-16',
    ),
    contentEncoding: fc.constant(undefined),
    bytes: asText,
    expected: fc.constant('unsupported_media_type' as const),
  }),
  fc.record({
    contentType: fc.constantFrom(undefined, 'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/jsonx'),
    contentEncoding: fc.constant(undefined),
    // Bytes, so that "no Content-Type" stays none (fetch adds text/plain to a string body).
    bytes: fc.constant('utf-8' as const),
    expected: fc.constant('unsupported_media_type' as const),
  }),
  fc.record({
    contentType: fc.constantFrom(...JSON_TYPES),
    contentEncoding: fc.constantFrom(undefined, 'identity'),
    bytes: fc.constantFrom([0xeb], [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]),
    expected: fc.constant('invalid_body' as const),
  }),
)

const newPet = fc.record({
  name: fc.string({ minLength: 1, maxLength: 12 }),
  categoryId: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  status: fc.constantFrom(undefined, 'available', 'pending', 'sold'),
})

/** The JSON of the pet, as a string, as UTF-8 bytes, or with the bytes `bad` in its name. */
function encodePet(
  { name, categoryId, status }: typeof newPet extends fc.Arbitrary<infer T> ? T : never,
  bytes: 'string' | 'utf-8' | readonly number[],
) {
  const rest = `,"categoryId":${categoryId}${status === undefined ? '' : `,"status":"${status}"`}}`
  if (bytes === 'string') return `{"name":${JSON.stringify(name)}${rest}`
  if (bytes === 'utf-8') return utf8.encode(`{"name":${JSON.stringify(name)}${rest}`)
  return Uint8Array.from([...utf8.encode(`{"name":${JSON.stringify(name).slice(0, -1)}`), ...bytes, ...utf8.encode(`"${rest}`)])
}

/**
 * @example
 * defineFuzzSuite('petStore.fetch', async () => ({ fetch: petStore.fetch, origin: 'https://api.petstore.test', petState }))
 */
export function defineFuzzSuite(name: string, start: () => Promise<FuzzTarget>): void {
  describe(`fuzz: ${name}`, () => {
    let target: FuzzTarget
    beforeAll(async () => {
      target = await start()
    })
    it('never answers 5xx but the documented 501 not_implemented of GET /v1/store/orders, over 300 random requests', async () => {
      await fc.assert(
        fc.asyncProperty(exchange, async (request) => {
          const { status, text, label } = await send(target, request)
          if (request.method === 'HEAD') expect(text, label).toBe('')
          if (status === 501) {
            expect(`${request.method} ${request.path}`, label).toMatch(/^(GET|HEAD) \/v1\/store\/orders$/)
            if (request.method !== 'HEAD') expect(JSON.parse(text), label).toMatchObject({ code: 'not_implemented', status: 501 })
          } else {
            expect(status, label).toBeLessThan(500)
          }
        }),
        { numRuns: 300 },
      )
    })

    it('answers every 4xx as application/json with exactly { code, message, status }, status the HTTP status, over 300 random requests', async () => {
      await fc.assert(
        fc.asyncProperty(exchange, async (request) => {
          const { status, contentType, text, label } = await send(target, request)
          if (status < 400 || status >= 500 || request.method === 'HEAD') return
          expect(contentType, label).toMatch(/^application\/json\s*(;|$)/)
          const error = JSON.parse(text) as Record<string, unknown>
          expect(Object.keys(error).sort(), label).toEqual(['code', 'message', 'status'])
          expect(error['status'], label).toBe(status)
          expect(Object.hasOwn(ERRORS, String(error['code'])), label).toBe(true)
          expect(typeof error['message'], label).toBe('string')
          expect(String(error['message']).length, label).toBeGreaterThan(0)
        }),
        { numRuns: 300 },
      )
    })

    it('leaves the pets and the next id of the state unchanged by every request it refuses, over 300 random requests', async () => {
      let refused = 0
      await fc.assert(
        fc.asyncProperty(exchange, async (request) => {
          const before = await target.petState()
          const { status, label } = await send(target, request)
          if (status < 400) return
          refused++
          expect(await target.petState(), label).toEqual(before)
        }),
        { numRuns: 300 },
      )
      // The property compared states at all: most random requests are refused.
      expect(refused).toBeGreaterThan(50)
    })

    it('creates a valid NewPet sent as UTF-8 JSON, and refuses it unchanged with 400 unsupported_media_type or invalid_body otherwise', async () => {
      await fc.assert(
        fc.asyncProperty(newPet, delivery, async (pet, { contentType, contentEncoding, bytes, expected }) => {
          const headers: Record<string, string> = { authorization: 'Bearer test-pro' }
          if (contentType !== undefined) headers['content-type'] = contentType
          if (contentEncoding !== undefined) headers['content-encoding'] = contentEncoding
          const before = await target.petState()
          const response = await target.fetch(`${target.origin}/v1/pets`, { method: 'POST', headers, body: encodePet(pet, bytes) })
          const text = await response.text()
          const after = await target.petState()
          const label = `${JSON.stringify(headers)} ${String(bytes)} -> ${response.status} ${text}`
          if (expected === 'created') {
            expect(response.status, label).toBe(201)
            expect(after.nextId, label).toBe(before.nextId + 1n)
            expect(after.pets.length, label).toBe(before.pets.length + 1)
            expect(
              after.pets.find((stored) => stored.id === before.nextId),
              label,
            ).toMatchObject({ name: pet.name, categoryId: pet.categoryId })
          } else {
            expect(response.status, label).toBe(400)
            expect(response.headers.get('content-type'), label).toMatch(/^application\/json\s*(;|$)/)
            expect(JSON.parse(text), label).toEqual({ code: expected, message: expect.any(String), status: 400 })
            expect(after, label).toEqual(before)
          }
        }),
        { numRuns: 200 },
      )
    })
  })
}
