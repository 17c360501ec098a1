/**
 * Fetch lets a request carry any method token, and msw and `petStore.fetch` pass it on as sent: a method named like a
 * property every object has (`constructor`, `toString`) is a method like any other, answered 405 with the path's
 * `Allow` (spec: "405 Method Not Allowed"). It once reached a function for an operation and msw answered a 500 with a
 * stack trace. And if the mock ever fails, these hosts answer its own 500 Error body, never msw's stack trace.
 */
import { createRequire } from 'node:module'
import { setupServer } from 'msw/node'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createHandlers } from '../../src/handlers/index.js'
import { createPetStore } from '../../src/index.js'

const BASE = 'https://api.petstore.test/v1'
/**
 * msw 3 (3.0.5, Node 24) does not intercept a request whose method is a lower-case name fetch does not normalize
 * (`foo`, `constructor`): it goes to the network, whatever the handlers. msw 2 hands it to them.
 */
const MSW_MAJOR = Number((createRequire(import.meta.url)('msw/package.json') as { version: string }).version.split('.')[0])
const METHODS = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']
const auth = { authorization: 'Bearer test-pro' }

async function expect405(response: Response, allow: string, method: string, path: string) {
  expect(response.status).toBe(405)
  expect(response.headers.get('allow')).toBe(allow)
  expect(await response.json()).toEqual({
    code: 'method_not_allowed',
    message: `${method} is not allowed on /v1${path}; allowed: ${allow}.`,
    status: 405,
  })
}

describe('methods named like object properties', () => {
  let close = () => {}
  afterEach(() => {
    close()
    close = () => {}
  })

  it.skipIf(MSW_MAJOR >= 3)('are answered 405 through msw 2', async () => {
    const petStore = createPetStore()
    const server = setupServer(...petStore.handlers)
    server.listen({ onUnhandledRequest: 'error' })
    close = () => server.close()
    for (const method of METHODS) {
      await expect405(await fetch(`${BASE}/pets`, { method, headers: auth }), 'GET, HEAD, POST', method, '/pets')
      await expect405(await fetch(`${BASE}/pets/1`, { method, headers: auth }), 'GET, HEAD', method, '/pets/1')
    }
  })

  it('are answered 405 by petStore.fetch, given a Request (the method as sent) or a URL (upper-cased)', async () => {
    const petStore = createPetStore()
    for (const method of METHODS) {
      await expect405(await petStore.fetch(new Request(`${BASE}/pets`, { method, headers: auth })), 'GET, HEAD, POST', method, '/pets')
      const upper = method.toUpperCase()
      await expect405(await petStore.fetch(`${BASE}/store/orders`, { method, headers: auth }), 'GET, HEAD', upper, '/store/orders')
    }
  })
})

describe('a failure of the mock in a fetch host', () => {
  let close = () => {}
  afterEach(() => {
    close()
    close = () => {}
    vi.restoreAllMocks()
  })

  /** Sends one request to handlers whose world throws; `logged` spies on console.error. */
  async function failOnce() {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const failing = () => {
      throw new TypeError('a bug')
    }
    const server = setupServer(...createHandlers(failing, BASE))
    server.listen({ onUnhandledRequest: 'error' })
    close = () => server.close()
    const response = await fetch(`${BASE}/pets`, { headers: auth })
    return { logged, response }
  }

  it('is answered 500 internal_error with an Error body, no stack in it', async () => {
    const { response } = await failOnce()
    expect(response.status).toBe(500)
    const body = await response.text()
    expect(JSON.parse(body)).toEqual({
      code: 'internal_error',
      message: 'The mock failed to answer this request; the console has the details.',
      status: 500,
    })
    expect(body).not.toContain('TypeError')
  })

  it('is logged to the console', async () => {
    const { logged } = await failOnce()
    expect(logged).toHaveBeenCalledWith('[petstore-mock] Request failed:', expect.any(TypeError))
  })
})
