import { afterAll } from 'vitest'
import { defineConformanceSuite } from '../conformance/suite.js'
import { closeServers, startServer } from './support.js'

// One server per {seed, pets}, started on first use; each world is a session of its own on it.
const servers = new Map<string, Promise<string>>()
let worlds = 0

afterAll(closeServers)

const serverFor = (seed: number, pets: number): Promise<string> => {
  const key = `${seed}:${pets}`
  let url = servers.get(key)
  if (!url) {
    url = startServer({ seed, pets, maxSessions: 10_000 }).then((started) => started.url)
    servers.set(key, url)
  }
  return url
}

defineConformanceSuite({
  name: 'standalone server over HTTP, one X-Mock-Session per world',
  async start({ seed = 1, pets = 50 }) {
    const url = await serverFor(seed, pets)
    const session = `conformance-${++worlds}`
    const withSession = (init: RequestInit | undefined): RequestInit => {
      const headers = new Headers(init?.headers)
      headers.set('x-mock-session', session)
      return { ...init, headers }
    }
    return {
      fetch: (input, init) => fetch(input, withSession(init)),
      baseUrl: `${url}/v1`,
      async setClock(iso) {
        const response = await fetch(`${url}/__mock/clock`, withSession({ method: 'POST', body: JSON.stringify({ set: iso }) }))
        if (response.status !== 200) throw new Error(`POST /__mock/clock answered ${response.status}: ${await response.text()}`)
      },
      close: async () => {},
    }
  },
})
