/**
 * Header names are the client's: one named like a property every object has (`__proto__`, `constructor`) is a header
 * like any other. The journal (and its HAR) shows what the SDK sent, so it keeps them; a plain object once dropped
 * `__proto__` on the way in (`petStore.fetch`, msw) and again when the entry was read.
 */
import { describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { toHar } from '../../src/journal/har.js'

const NAMES = ['__proto__', 'constructor', 'tostring', 'hasownproperty']

function requestWithOddHeaders(): Request {
  const headers = new Headers([['authorization', 'Bearer test-pro']])
  for (const name of NAMES) headers.append(name, `value of ${name}`)
  return new Request('https://api.petstore.test/v1/pets?limit=1', { headers })
}

describe('header names like object properties', () => {
  it('are kept in the journal entry of a request through petStore.fetch', async () => {
    const petStore = createPetStore()
    const response = await petStore.fetch(requestWithOddHeaders())
    expect(response.status).toBe(200)
    const [entry] = petStore.journal.find({ method: 'GET', path: '/v1/pets' })
    const sent = entry?.requestHeaders ?? {}
    for (const name of NAMES) {
      expect(Object.hasOwn(sent, name), name).toBe(true)
      expect(Object.getOwnPropertyDescriptor(sent, name)?.value).toBe(`value of ${name}`)
    }
    // The key stays redacted beside them.
    expect(Object.getOwnPropertyDescriptor(sent, 'authorization')?.value).not.toContain('test-pro')
  })

  it('are in the HAR export (GET /__mock/requests.har), each once', async () => {
    const petStore = createPetStore()
    await petStore.fetch(requestWithOddHeaders())
    const har = toHar(petStore.journal.all(), { origin: 'http://127.0.0.1:4010', version: 'test' }) as unknown as {
      log: { entries: { request: { headers: { name: string; value: string }[] } }[] }
    }
    const headers = har.log.entries[0]?.request.headers ?? []
    for (const name of NAMES)
      expect(
        headers.filter((header) => header.name === name),
        name,
      ).toEqual([{ name, value: `value of ${name}` }])
  })
})

describe('a journal entry with such a header', () => {
  it('keeps its request headers a plain object, so toStrictEqual against a literal still holds', async () => {
    const petStore = createPetStore()
    await petStore.fetch(new Request('https://api.petstore.test/v1/pets?limit=1', { headers: { authorization: 'Bearer test-pro' } }))
    const [entry] = petStore.journal.all()
    expect(Object.getPrototypeOf(entry?.requestHeaders)).toBe(Object.prototype)
    expect(entry?.requestHeaders).toStrictEqual({ authorization: 'Bearer …' })
  })
})
