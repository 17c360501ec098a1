/**
 * A GET or HEAD body is ignored alike in every host (RFC 9110 sections 9.3.1 and 9.3.2 give it no meaning; the one
 * place that builds the core's request, `apiRequestOf`, drops it): the standalone server and the express middleware
 * answer a GET with a body over the body limit as they answer one without (200, never 413), and `petStore.fetch`
 * does too. The journal keeps no body for it. Loopback only.
 */
import { request as httpRequest } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { startExpressHost } from '../express/support.js'
import { closeServers, startServer } from './support.js'

afterAll(closeServers)

/** A body over the default limit (1 MiB): a host that read it as the API's would answer 413. */
const BIG = 'x'.repeat(1024 * 1024 + 10)

/** A request with a body, whatever its method (fetch refuses a GET body), over node:http. */
function send(url: string, method: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe('a GET or HEAD body', () => {
  it('is ignored by the standalone server: 200 with the page, not 413, and no body in the journal', async () => {
    const { url } = await startServer()
    const get = await send(`${url}/v1/pets?limit=2`, 'GET', BIG)
    expect(get.status).toBe(200)
    expect(JSON.parse(get.body)).toHaveLength(2)
    expect((await send(`${url}/v1/pets/1`, 'HEAD', BIG)).status).toBe(200)
    // The connection still serves the next request after the discarded body.
    expect((await send(`${url}/v1/pets/1`, 'GET', '{"name":"ignored"}')).status).toBe(200)
    const journal = (await (await fetch(`${url}/__mock/requests?limit=3`)).json()) as { bodySize: number; bodyText?: string }[]
    expect(journal).toHaveLength(3)
    for (const entry of journal) expect({ size: entry.bodySize, text: entry.bodyText }).toEqual({ size: 0, text: undefined })
  })

  it('is ignored by the express middleware alike', async () => {
    const host = await startExpressHost(createPetStore({ collection: false }))
    try {
      const get = await send(`${host.origin}/v1/pets?limit=2`, 'GET', BIG)
      expect(get.status).toBe(200)
      expect(JSON.parse(get.body)).toHaveLength(2)
    } finally {
      await host.close()
    }
  })

  it('is ignored by petStore.fetch alike', async () => {
    const petStore = createPetStore({ collection: false, journalLimit: 10 })
    const get = await petStore.fetch('/v1/pets?limit=2', { method: 'GET', headers: { authorization: 'Bearer test-pro' }, body: BIG })
    expect(get.status).toBe(200)
    expect(await get.json()).toHaveLength(2)
    expect(petStore.journal.all().map(({ bodySize, bodyText }) => ({ bodySize, bodyText }))).toEqual([{ bodySize: 0, bodyText: undefined }])
  })
})
