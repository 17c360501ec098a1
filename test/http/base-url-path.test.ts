/**
 * A base address with more path than `/v1` (`baseUrl: 'https://api.test/api/v1'`): the standalone server and the msw
 * handlers serve the API there, and the paths they hand out in `Location` and `Link` carry the whole base path, so a
 * client that follows them reaches the mock again (docs/spec-decisions.md rows 20 and 20a). The express host's own
 * mount path is test/express/mount-path.test.ts.
 */
import { setupServer } from 'msw/node'
import { afterEach, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { auth, closeServers, startServer } from './support.js'

const NEW_PET = '{"name":"Based","categoryId":2}'
const json = auth('test-pro', { 'content-type': 'application/json' })

describe('the standalone server with baseUrl /api/v1', () => {
  afterEach(closeServers)

  it('answers a create with a Location under /api/v1, which leads to the new pet', async () => {
    const { url } = await startServer({ seed: 3, pets: 5, baseUrl: '/api/v1' })
    const created = await fetch(`${url}/api/v1/pets`, { method: 'POST', headers: json, body: NEW_PET })
    expect(created.status).toBe(201)
    const location = created.headers.get('location')
    expect(location).toBe('/api/v1/pets/6')
    const followed = await fetch(`${url}${location}`, { headers: auth('test-pro') })
    expect(await followed.json()).toEqual({ id: 6, name: 'Based', categoryId: 2 })
  })

  it('points the deprecated getPet at /api/v1/pets', async () => {
    const { url } = await startServer({ seed: 3, pets: 5, baseUrl: '/api/v1' })
    const response = await fetch(`${url}/api/v1/pets/1`, { headers: auth('test-pro') })
    expect(response.headers.get('link')).toBe('</api/v1/pets>; rel="successor-version"')
  })

  it('serves an OpenAPI document whose server is under /api/v1, where the API answers', async () => {
    const { url } = await startServer({ seed: 3, pets: 5, baseUrl: '/api/v1' })
    const document = (await (await fetch(`${url}/__mock/openapi.json`)).json()) as { servers: { url: string }[] }
    expect(document.servers[0]?.url).toBe(`${url}/api/v1`)
    expect((await fetch(`${document.servers[0]?.url}/pets/1`, { headers: auth('test-pro') })).status).toBe(200)
  })

  it('journals and exports the path the client sent, base path included', async () => {
    const { url } = await startServer({ seed: 3, pets: 5, baseUrl: '/api/v1' })
    await fetch(`${url}/api/v1/pets`, { method: 'POST', headers: json, body: NEW_PET })
    const [entry] = (await (await fetch(`${url}/__mock/requests`)).json()) as { path: string }[]
    expect(entry?.path).toBe('/api/v1/pets')
    const har = (await (await fetch(`${url}/__mock/requests.har`)).json()) as { log: { entries: { request: { url: string } }[] } }
    expect(har.log.entries[0]?.request.url).toBe(`${url}/api/v1/pets`)
  })
})

describe("msw's handlers with baseUrl https://api.test/api/v1", () => {
  it('answer a create with a Location under /api/v1 and getPet with a Link there', async () => {
    const petStore = createPetStore({ seed: 3, pets: 5, baseUrl: 'https://api.test/api/v1' })
    const server = setupServer(...petStore.handlers)
    server.listen({ onUnhandledRequest: 'error' })
    try {
      const created = await fetch('https://api.test/api/v1/pets', { method: 'POST', headers: json, body: NEW_PET })
      const location = created.headers.get('location')
      expect(location).toBe('/api/v1/pets/6')
      expect((await fetch(new URL(location ?? '', 'https://api.test'), { headers: auth('test-pro') })).status).toBe(200)
      const got = await fetch('https://api.test/api/v1/pets/1', { headers: auth('test-pro') })
      expect(got.headers.get('link')).toBe('</api/v1/pets>; rel="successor-version"')
      expect(petStore.journal.find({ method: 'POST' })[0]?.path).toBe('/api/v1/pets')
    } finally {
      server.close()
    }
  })
})
