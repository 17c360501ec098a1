/**
 * The shared conformance suite over two replicas of the built CLI on one private Redis (`--redis`, docs/replicas.md):
 * each world is an X-Mock-Session, and its requests go to replica A and replica B in turn, so every check
 * also checks that the two behave as one server. `setClock` tells A and waits for B to follow.
 */
import { afterAll, beforeAll } from 'vitest'
import { defineConformanceSuite } from '../conformance/suite.js'
import { ensureBuilt, eventually, killClis } from '../http/support.js'
import { type PrivateRedis, startRedis, startReplicas, stopRedises } from './redis-support.js'

let redis: PrivateRedis | undefined

beforeAll(async () => {
  await ensureBuilt()
  redis = await startRedis()
})

afterAll(async () => {
  await killClis()
  await stopRedises()
})

/** A replica pair per {seed, pets}, started on first use, each pair on a Redis database of its own. */
const pairs = new Map<string, Promise<readonly [string, string]>>()
let worlds = 0

const pairFor = (seed: number, pets: number): Promise<readonly [string, string]> => {
  const key = `${seed}:${pets}`
  let pair = pairs.get(key)
  if (!pair) {
    if (!redis) throw new Error('The private Redis did not start.')
    // Databases 1-15: the suite uses five {seed, pets} pairs.
    const url = `${redis.url}/${pairs.size + 1}`
    pair = startReplicas(2, url, ['--seed', String(seed), '--pets', String(pets), '--max-sessions', '10000']).then(
      ([a, b]) => [a?.url ?? '', b?.url ?? ''] as const,
    )
    pairs.set(key, pair)
  }
  return pair
}

defineConformanceSuite({
  name: 'two server replicas on one Redis, requests alternating between them, one X-Mock-Session per world',
  async start({ seed = 1, pets = 50 }) {
    const [a, b] = await pairFor(seed, pets)
    const session = `conformance-${++worlds}`
    let sent = 0
    const withSession = (init: RequestInit | undefined): RequestInit => {
      const headers = new Headers(init?.headers)
      headers.set('x-mock-session', session)
      return { ...init, headers }
    }
    /** The suite's URLs start with A's base URL: every other request goes to B instead. */
    const alternate = (input: string | URL | Request): string | URL | Request => {
      const toB = sent++ % 2 === 1
      if (!toB) return input
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
      if (!url.startsWith(a)) throw new Error(`The suite sent ${url}, not under replica A (${a}).`)
      return `${b}${url.slice(a.length)}`
    }
    const clockOf = async (url: string) => {
      const response = await fetch(`${url}/__mock/clock`, withSession(undefined))
      return (await response.json()) as { now: string; frozen: boolean }
    }
    return {
      fetch: (input, init) => fetch(alternate(input), withSession(init)),
      baseUrl: `${a}/v1`,
      async setClock(iso) {
        const response = await fetch(`${a}/__mock/clock`, withSession({ method: 'POST', body: JSON.stringify({ set: iso }) }))
        if (response.status !== 200) throw new Error(`POST /__mock/clock answered ${response.status}: ${await response.text()}`)
        const { now } = (await response.json()) as { now: string }
        // B follows through pub/sub: wait until it shows the same frozen moment.
        let seen: { now: string; frozen: boolean } | undefined
        await eventually(async () => {
          seen = await clockOf(b)
          return seen.frozen && seen.now === now ? true : undefined
        }).catch((error: unknown) => {
          throw new Error(`Replica B did not follow the clock to ${now}: it shows ${JSON.stringify(seen)} (${String(error)}).`)
        })
      },
      close: async () => {},
    }
  },
})
