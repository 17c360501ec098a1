/**
 * The express host mounted under a path (`app.use('/api', petStoreMiddleware(petStore))`): the paths it hands out in
 * `Location` and `Link` carry the mount, so a client that follows them reaches the mock again (docs/spec-decisions.md
 * row 20a). The journal keeps the world's own paths (row 20a says why).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createPetStore, type World } from '../../src/index.js'
import { type ExpressHost, startExpressHost } from './support.js'

const auth = { authorization: 'Bearer test-pro' }
const hosts: ExpressHost[] = []
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()))
})

async function mountedAt(
  mount: string,
  petStore: Pick<World, 'handle' | 'basePath' | 'markDelivered'> = createPetStore({ seed: 3, pets: 5 }),
) {
  const host = await startExpressHost(petStore, mount)
  hosts.push(host)
  return host.origin
}

function create(origin: string, apiPath: string): Promise<Response> {
  return fetch(`${origin}${apiPath}/pets`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{"name":"Mounted","categoryId":2}',
  })
}

describe.each(['/api', '/outer/api'])('mounted at %s', (mount) => {
  it('answers a create with a Location under the mount, which leads to the new pet', async () => {
    const origin = await mountedAt(mount)
    const created = await create(origin, `${mount}/v1`)
    expect(created.status).toBe(201)
    const location = created.headers.get('location')
    expect(location).toBe(`${mount}/v1/pets/6`)
    const followed = await fetch(`${origin}${location}`, { headers: auth })
    expect(followed.status).toBe(200)
    expect(await followed.json()).toEqual({ id: 6, name: 'Mounted', categoryId: 2 })
  })

  it('points the deprecated getPet at its successor under the mount', async () => {
    const origin = await mountedAt(mount)
    const response = await fetch(`${origin}${mount}/v1/pets/1`, { headers: auth })
    expect(response.status).toBe(200)
    const link = response.headers.get('link')
    expect(link).toBe(`<${mount}/v1/pets>; rel="successor-version"`)
    const successor = /^<([^>]+)>/.exec(link ?? '')?.[1]
    const followed = await fetch(`${origin}${successor}`, { headers: auth })
    expect(followed.status).toBe(200)
    expect(await followed.json()).toHaveLength(5)
  })
})

it('adds the mount to an answer the world gives later (a Promise)', async () => {
  const petStore = createPetStore({ seed: 3, pets: 5 })
  const later: Pick<World, 'handle' | 'basePath' | 'markDelivered'> = {
    basePath: petStore.basePath,
    markDelivered: petStore.markDelivered,
    handle: async (request) => petStore.handle(request),
  }
  const origin = await mountedAt('/api', later)
  expect((await create(origin, '/api/v1')).headers.get('location')).toBe('/api/v1/pets/6')
  const got = await fetch(`${origin}/api/v1/pets/1`, { headers: auth })
  expect(got.headers.get('link')).toBe('</api/v1/pets>; rel="successor-version"')
})

it('leaves the paths as the world names them when mounted at the root', async () => {
  const origin = await mountedAt('/')
  expect((await create(origin, '/v1')).headers.get('location')).toBe('/v1/pets/6')
  expect((await fetch(`${origin}/v1/pets/1`, { headers: auth })).headers.get('link')).toBe('</v1/pets>; rel="successor-version"')
})

it('carries a world whose base path has more than /v1 through the mount too', async () => {
  const origin = await mountedAt('/api', createPetStore({ seed: 3, pets: 5, baseUrl: 'https://api.test/svc/v1' }))
  const created = await create(origin, '/api/svc/v1')
  expect(created.headers.get('location')).toBe('/api/svc/v1/pets/6')
  expect((await fetch(`${origin}/api/svc/v1/pets/6`, { headers: auth })).status).toBe(200)
})

it("journals the world's own path, without the mount (docs/spec-decisions.md row 20a)", async () => {
  const petStore = createPetStore({ seed: 3, pets: 5 })
  const origin = await mountedAt('/api', petStore)
  await create(origin, '/api/v1')
  const [entry] = petStore.journal.find({ method: 'POST' })
  expect(entry?.path).toBe('/v1/pets')
  expect(entry?.status).toBe(201)
})
