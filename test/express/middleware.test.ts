/** The mock mounted in a user's own express app (docs/server.md, "Mount it in your own express app"). */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { petStoreMiddleware } from '../../src/server/express.js'

const petStore = createPetStore({ seed: 3, pets: 5 })
let server: Server
let base = ''

beforeAll(async () => {
  const app = express()
  app.get('/health', (_req, res) => {
    res.send('app ok')
  })
  app.use('/api', petStoreMiddleware(petStore))
  app.use('/api', (_req, res) => {
    res.status(418).send('the app answered')
  })
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => resolve())
  })
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const auth = { Authorization: 'Bearer test-pro' }

it('serves the API under the mount path', async () => {
  const response = await fetch(`${base}/api/v1/pets?limit=2`, { headers: auth })
  expect(response.status).toBe(200)
  expect(response.headers.get('x-ratelimit-limit')).toBe('300')
  expect(await response.json()).toHaveLength(2)
})

it('creates a pet with an exact int64 categoryId from the raw body', async () => {
  const response = await fetch(`${base}/api/v1/pets`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{"name":"Mounted","categoryId":9223372036854775807}',
  })
  expect(response.status).toBe(201)
  expect(response.headers.get('location')).toBe('/api/v1/pets/6')
  expect(await response.text()).toBe('{"id":6,"name":"Mounted","categoryId":9223372036854775807}')
})

it('answers errors with the Error body', async () => {
  const response = await fetch(`${base}/api/v1/pets/abc`, { headers: auth })
  expect(response.status).toBe(404)
  expect(await response.json()).toEqual({ code: 'pet_not_found', message: expect.any(String), status: 404 })
})

it('passes requests outside its base path on to the app', async () => {
  expect(await (await fetch(`${base}/api/other`)).text()).toBe('the app answered')
  expect(await (await fetch(`${base}/health`)).text()).toBe('app ok')
})
