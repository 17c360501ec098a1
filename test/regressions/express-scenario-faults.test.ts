/**
 * Regression: the express middleware answered a `network-error` fault with express's HTML 500 page
 * (`RangeError: Invalid status code: 0`) and ignored `latency` faults. It now shares the standalone
 * server's delivery step, so every fault behaves as it does there.
 */
import { afterEach, expect, it } from 'vitest'
import type { ApiRequest } from '../../src/core/types.js'
import { createPetStore } from '../../src/index.js'
import { type ExpressHost, startExpressHost } from '../express/support.js'

const auth = { authorization: 'Bearer test-pro' }
let host: ExpressHost | undefined
afterEach(async () => {
  await host?.close()
  host = undefined
})

const withScenario = async (faults: unknown[], onRequest = () => {}) => {
  const petStore = createPetStore({ scenario: 'under-test', scenarios: [{ name: 'under-test', description: 'faults under test', faults }] })
  // The world as the middleware sees it, told first of each request it is handed.
  const world = {
    basePath: petStore.basePath,
    markDelivered: petStore.markDelivered,
    handle: (request: ApiRequest) => {
      onRequest()
      return petStore.handle(request)
    },
  }
  host = await startExpressHost(world, '/api')
  return { petStore, base: `${host.origin}/api/v1` }
}

it('drops the connection on a network-error fault instead of answering an HTML 500', async () => {
  const { base, petStore } = await withScenario([{ chaos: true, match: { operation: 'listPets' }, fault: { type: 'network-error' } }])
  await expect(fetch(`${base}/pets`, { headers: auth })).rejects.toThrow(/fetch failed/)
  expect(petStore.journal.find({ path: '/v1/pets' })[0]?.fault).toBe('network-error')
  // Operations the rule does not match are answered as usual.
  expect((await fetch(`${base}/pets/1`, { headers: auth })).status).toBe(200)
})

it('waits for a latency fault before answering', async () => {
  // A timer of the fault's 300 ms, started as the request reaches the mock and so before the delivery starts its own:
  // timers of one length fire in the order they were started, on any machine, so it has fired by the answer.
  let waited = false
  const { base, petStore } = await withScenario([{ fault: { type: 'latency', ms: 300 } }], () => {
    setTimeout(() => {
      waited = true
    }, 300)
  })
  const response = await fetch(`${base}/pets?limit=1`, { headers: auth })
  expect(response.status).toBe(200)
  expect(waited, 'answered before the latency had passed').toBe(true)
  // The journal counts the fault's delay in the exchange's duration.
  const [entry] = petStore.journal.find({ path: '/v1/pets' })
  expect(entry).toMatchObject({ fault: 'latency' })
  expect(entry?.durationMs).toBeGreaterThanOrEqual(300)
})

it('answers a status fault with an Error response that carries its Retry-After', async () => {
  const { base } = await withScenario([{ chaos: true, fault: { type: 'status', status: 503, retryAfter: 7 } }])
  const response = await fetch(`${base}/pets`, { headers: auth })
  expect(response.status).toBe(503)
  expect(response.headers.get('retry-after')).toBe('7')
  expect(await response.json()).toMatchObject({ code: 'service_unavailable', status: 503 })
})

it('holds the answer on a timeout fault until the client gives up', async () => {
  const { base } = await withScenario([{ chaos: true, fault: { type: 'timeout' } }])
  await expect(fetch(`${base}/pets`, { headers: auth, signal: AbortSignal.timeout(300) })).rejects.toThrow(/aborted|timeout/i)
})

it('answers a failure of the mock with a JSON Error body, not an HTML page', async () => {
  const failing = {
    basePath: '/v1',
    handle: (_request: ApiRequest): never => {
      throw new Error('boom')
    },
    markDelivered: () => {},
  }
  host = await startExpressHost(failing)
  const response = await fetch(`${host.origin}/v1/pets`, { headers: auth })
  expect(response.status).toBe(500)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  expect(await response.json()).toEqual({ code: 'internal_error', message: expect.any(String), status: 500 })
})
