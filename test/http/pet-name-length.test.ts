/**
 * The length limit on a new pet's `name` over HTTP (docs/spec-decisions.md row 4): the standalone server
 * answers as every host does, and its OpenAPI document states the limit it runs with. Loopback, a few requests.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { closeServers, postPet, startServer } from './support.js'

afterEach(closeServers)

/** NewPet's `name` schema in the document the server serves. */
async function servedName(url: string): Promise<{ maxLength?: number }> {
  const document = (await (await fetch(`${url}/__mock/openapi.json`)).json()) as {
    components: { schemas: { NewPet: { properties: { name: { maxLength?: number } } } } }
  }
  return document.components.schemas.NewPet.properties.name
}

describe('the name limit over HTTP', () => {
  it('stores a name of exactly 1,000 characters with 201', async () => {
    const { url } = await startServer()
    expect((await postPet(url, { name: 'n'.repeat(1000), categoryId: 1 })).status).toBe(201)
  })

  it('answers a name of 1,001 characters with 400 invalid_body naming the field and the limit', async () => {
    const { url } = await startServer()
    const response = await postPet(url, { name: 'n'.repeat(1001), categoryId: 1 })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      code: 'invalid_body',
      message: 'Invalid NewPet: name must be at most 1000 characters (got 1001).',
      status: 400,
    })
  })

  it('serves an OpenAPI document whose NewPet name has maxLength 1000', async () => {
    const { url } = await startServer()
    expect(await servedName(url)).toMatchObject({ type: 'string', maxLength: 1000 })
  })

  it('answers and documents the limit of its maxNameLength option', async () => {
    const { url } = await startServer({ maxNameLength: 3 })
    expect((await postPet(url, { name: 'Rex', categoryId: 1 })).status).toBe(201)
    expect(((await (await postPet(url, { name: 'Rexy', categoryId: 1 })).json()) as { message: string }).message).toBe(
      'Invalid NewPet: name must be at most 3 characters (got 4).',
    )
    expect((await servedName(url)).maxLength).toBe(3)
  })
})
