/**
 * Every tool leaves the world exactly as its admin request does (docs/mcp.md, "Tools"): each case runs the tool on one
 * session and the admin request on another of the same server, both from the same frozen moment, then compares their
 * whole states (GET /__mock/state: pets, counters and bans, clock, scenario). Over stdio (the built CLI, whose tools
 * call the admin API) and over /__mock/mcp (whose tools act on the sessions in the server's process).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeServers, startServer } from '../http/support.js'
import { adminCall, closeClients, httpClient, readResult, stateOf, stdioClient } from './support.js'

const MOMENT = '2030-06-01T12:00:30Z'

interface Case {
  readonly tool: string
  readonly args: Record<string, unknown>
  /** The admin request(s) that must leave the same world. */
  readonly admin: (url: string, session: string) => Promise<unknown>
  /** What the tool answered, checked against the admin API's answer where the tool reads. */
  readonly answered?: (data: unknown, url: string, session: string) => Promise<void>
}

const read = async (url: string, session: string, path: string) => (await adminCall(url, session, 'GET', path)).json()

const CASES: Case[] = [
  {
    tool: 'list_keys',
    args: {},
    admin: async () => undefined,
    answered: async (data, url, session) => {
      const keys = (await read(url, session, '/__mock/keys')) as { key: string; bannedUntil: unknown }[]
      expect((data as { key: string }[]).map((key) => key.key)).toEqual(keys.map((key) => key.key))
    },
  },
  {
    tool: 'exhaust_quota',
    args: { key: 'test-free', window: 'minute' },
    admin: (url, session) => adminCall(url, session, 'POST', '/__mock/keys/test-free', { minuteUsed: 'all' }),
  },
  {
    tool: 'exhaust_quota',
    args: { key: 'test-pro', window: 'day' },
    admin: (url, session) => adminCall(url, session, 'POST', '/__mock/keys/test-pro', { dayUsed: 'all' }),
  },
  {
    tool: 'ban_key',
    args: { key: 'test-business', seconds: 90 },
    admin: (url, session) => adminCall(url, session, 'POST', '/__mock/keys/test-business', { bannedForSeconds: 90 }),
  },
  {
    tool: 'create_pets',
    args: { count: 3, status: 'sold', seed: 9 },
    admin: (url, session) => adminCall(url, session, 'POST', '/__mock/pets', { count: 3, status: 'sold', seed: 9 }),
  },
  {
    tool: 'reset',
    args: {},
    admin: (url, session) => adminCall(url, session, 'POST', '/__mock/reset'),
  },
  {
    tool: 'set_scenario',
    args: { name: 'rate-limited' },
    admin: (url, session) => adminCall(url, session, 'PUT', '/__mock/scenario', { name: 'rate-limited' }),
  },
  {
    tool: 'set_scenario',
    args: { name: 'outage-incident' },
    admin: (url, session) => adminCall(url, session, 'PUT', '/__mock/scenario', { name: 'outage-incident' }),
    answered: async (data, url, session) => {
      expect((data as { timeline: unknown }).timeline).toEqual(await read(url, session, '/__mock/timeline'))
    },
  },
  {
    tool: 'list_scenarios',
    args: {},
    admin: async () => undefined,
    answered: async (data, url, session) => expect(data).toEqual(await read(url, session, '/__mock/scenarios')),
  },
  {
    tool: 'advance_clock',
    args: { by: '15m' },
    admin: (url, session) => adminCall(url, session, 'POST', '/__mock/clock', { advanceSeconds: 900 }),
  },
  {
    tool: 'advance_clock',
    args: { to: 'next-minute' },
    admin: (url, session) => adminCall(url, session, 'POST', '/__mock/clock', { advanceSeconds: 30 }),
  },
  {
    tool: 'advance_clock',
    args: { to: 'sunset' },
    admin: (url, session) => adminCall(url, session, 'POST', '/__mock/clock', { set: '2030-12-05T00:00:00Z' }),
  },
  {
    tool: 'read_journal',
    args: { status: 401 },
    admin: async () => undefined,
    answered: async (data) => expect(data).toEqual([]),
  },
  {
    tool: 'audit',
    args: {},
    admin: async () => undefined,
    answered: async (data, url, session) => expect((data as { audit: unknown }).audit).toEqual(await read(url, session, '/__mock/audit')),
  },
  {
    tool: 'export_state',
    args: {},
    admin: async () => undefined,
  },
  {
    tool: 'import_state',
    args: {},
    admin: async (url, session) => {
      const state = (await read(url, session, '/__mock/state')) as { pets: unknown[] }
      await adminCall(url, session, 'PUT', '/__mock/state', { ...state, pets: state.pets.slice(0, 5) })
    },
  },
]

/** Runs every case on `client` against the server at `url`; `prefix` keeps the sessions of two runs apart. */
function equivalence(name: string, connect: () => Promise<{ client: Client; url: string }>) {
  describe(name, () => {
    let client: Client
    let url: string
    let runs = 0
    beforeAll(async () => {
      ;({ client, url } = await connect())
    })
    afterAll(async () => {
      await closeClients()
      await closeServers()
    })

    // reset and set_scenario put the real clock back: a minute may end between the two sessions' calls.
    it.each(CASES.map((one, i) => [`${one.tool} ${JSON.stringify(one.args)}`, i] as const))('%s', { retry: 2 }, async (_label, index) => {
      const one = CASES[index] as Case
      // Fresh sessions on each try.
      runs += 1
      const [mine, theirs] = [`tool-${index}-${runs}`, `admin-${index}-${runs}`]
      for (const session of [mine, theirs]) await adminCall(url, session, 'POST', '/__mock/clock', { set: MOMENT })
      let args: Record<string, unknown> = { ...one.args, session: mine }
      if (one.tool === 'import_state') {
        const state = (await stateOf(url, mine)) as { pets: unknown[] }
        args = { state: { ...state, pets: state.pets.slice(0, 5) }, session: mine }
      }
      const before = await stateOf(url, mine)
      const result = readResult(await client.callTool({ name: one.tool, arguments: args }))
      expect(result.isError, result.summary).toBe(false)
      expect(result.summary).not.toContain('\n')
      await one.admin(url, theirs)
      const after = await stateOf(url, mine)
      expect(after).toEqual(await stateOf(url, theirs))
      if (one.tool === 'export_state') expect(result.data).toEqual(before)
      await one.answered?.(result.data, url, mine)
    })
  })
}

equivalence('over stdio (petstore-mock mcp)', async () => {
  const { client, url } = await stdioClient()
  return { client, url }
})

equivalence('over HTTP (/__mock/mcp)', async () => {
  const { url } = await startServer()
  return { client: await httpClient(url), url }
})

describe('create_pets during an incident', () => {
  afterAll(async () => {
    await closeClients()
    await closeServers()
  })

  it('adds the pets and leaves the running timeline where it was', async () => {
    const { url } = await startServer()
    const client = await httpClient(url)
    const session = 'incident'
    await adminCall(url, session, 'PUT', '/__mock/scenario', { name: 'outage-incident' })
    await adminCall(url, session, 'POST', '/__mock/clock', { advanceSeconds: 12 * 60 })
    const result = readResult(await client.callTool({ name: 'create_pets', arguments: { count: 2, session } }))
    expect(result.isError, result.summary).toBe(false)
    const timeline = (await read(url, session, '/__mock/timeline')) as { current: string; elapsedMs: number }
    expect(timeline).toMatchObject({ current: 'outage', elapsedMs: 12 * 60_000 })
  })
})

describe('read_journal with a filter the admin API has not (the key, a time)', () => {
  afterAll(async () => {
    await closeClients()
    await closeServers()
  })

  /** One request of the free key, then 250 of another: the free key's is past the newest page the tool reads at once. */
  async function longJournal(url: string, session: string): Promise<void> {
    const send = (key: string) =>
      fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}`, 'x-mock-session': session } }).then((r) =>
        r.arrayBuffer(),
      )
    await send('test-free')
    for (let i = 0; i < 250; i++) await send('test-enterprise')
  }

  it.each([
    ['over HTTP (/__mock/mcp)', async () => startServer().then(async ({ url }) => ({ url, client: await httpClient(url) }))],
    ['over stdio (petstore-mock mcp)', stdioClient],
  ])('finds an old entry %s: it reads the journal page by page', async (_how, connect) => {
    const { url, client } = await connect()
    await longJournal(url, 'long')
    const call = async (args: Record<string, unknown>) =>
      readResult(await client.callTool({ name: 'read_journal', arguments: { ...args, session: 'long' } }))
    const free = await call({ key: 'test-free' })
    expect((free.data as { seq: number }[]).map((entry) => entry.seq)).toEqual([1])
    const newest = await call({ key: 'test-enterprise', limit: 3 })
    expect((newest.data as { seq: number }[]).map((entry) => entry.seq)).toEqual([249, 250, 251])
    const since = await call({ key: 'test-enterprise', since: 248, limit: 10 })
    expect((since.data as { seq: number }[]).map((entry) => entry.seq)).toEqual([249, 250, 251])
  })
})
