/**
 * `GET /__mock/scenario` reads back what `PUT /__mock/scenario` sets, in the shape PUT answers (`{ "scenario": name }`),
 * per session (`X-Mock-Session`) and behind the admin token like the rest of the admin API (docs/server.md, "Admin API").
 * Loopback only.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { auth, closeServers, startServer } from './support.js'

afterEach(closeServers)

const session = (name: string) => ({ 'x-mock-session': name })

async function readScenario(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(`${url}/__mock/scenario`, { headers })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  return response.json()
}

function switchTo(url: string, name: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/__mock/scenario`, { method: 'PUT', headers, body: JSON.stringify({ name }) })
}

describe('GET /__mock/scenario', () => {
  it('answers the scenario the server started in', async () => {
    const { url } = await startServer({ scenario: 'empty-store' })
    expect(await readScenario(url)).toEqual({ scenario: 'empty-store' })
  })

  it('answers what PUT set, in the shape PUT answered', async () => {
    const { url } = await startServer()
    const put = await switchTo(url, 'outage')
    expect(put.status).toBe(200)
    const answered = await put.json()
    expect(answered).toEqual({ scenario: 'outage' })
    expect(await readScenario(url)).toEqual(answered)
  })

  it("reads the session's own scenario", async () => {
    const { url } = await startServer({ scenario: 'empty-store' })
    expect((await switchTo(url, 'flaky', session('run-a'))).status).toBe(200)
    expect(await readScenario(url, session('run-a'))).toEqual({ scenario: 'flaky' })
    expect(await readScenario(url, session('run-b'))).toEqual({ scenario: 'empty-store' })
    expect(await readScenario(url)).toEqual({ scenario: 'empty-store' })
  })

  it('is kept behind the admin token', async () => {
    const { url } = await startServer({ adminToken: 's3cret' })
    const without = await fetch(`${url}/__mock/scenario`)
    expect(without.status).toBe(401)
    expect(((await without.json()) as { code: string }).code).toBe('admin_unauthorized')
    expect(await readScenario(url, auth('s3cret'))).toEqual({ scenario: expect.any(String) })
  })
})
