import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ApiRequest } from '../core/types.js'
import { createWorld, type World } from './create-world.js'
import type { WorldEvent } from './events.js'

const NOON = '2026-06-01T12:00:00Z'
const NOON_MS = Date.parse(NOON)

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

const get = (world: World, path: string, key = 'test-free') => world.fetch(path, { headers: { authorization: `Bearer ${key}` } })

/** Subscribes and collects every event the world sends. */
function record(world: World): {
  events: WorldEvent[]
  stop: () => void
  of: <T extends WorldEvent['type']>(type: T) => Extract<WorldEvent, { type: T }>[]
} {
  const events: WorldEvent[] = []
  const stop = world.events.subscribe((event) => events.push(event))
  return {
    events,
    stop,
    of: <T extends WorldEvent['type']>(type: T) => events.filter((event): event is Extract<WorldEvent, { type: T }> => event.type === type),
  }
}

/** A request whose headers count how often something lists them (building a journal entry does: it redacts them). */
function countedRequest(key: string): { request: ApiRequest; listed: () => number } {
  let listed = 0
  const headers = new Proxy<Record<string, string>>(
    { authorization: `Bearer ${key}` },
    {
      ownKeys(target) {
        listed += 1
        return Reflect.ownKeys(target)
      },
    },
  )
  return { request: { method: 'GET', path: '/v1/pets', query: 'limit=1', headers, body: undefined }, listed: () => listed }
}

describe('world events: costs nothing without subscribers', () => {
  /** Spies on the journal's and the clock's listen calls; `stops` names each source a stop function detached. */
  function spiedSources(world: World) {
    const stops: string[] = []
    const listen = world.journal.listen.bind(world.journal)
    const listenSpy = vi.spyOn(world.journal, 'listen').mockImplementation((listener) => {
      const stop = listen(listener)
      return () => {
        stops.push('journal')
        stop()
      }
    })
    const onChange = world.clock.onChange?.bind(world.clock)
    expect(onChange).toBeTypeOf('function')
    const clockSpy = vi.spyOn(world.clock, 'onChange').mockImplementation((listener) => {
      const stop = (onChange as NonNullable<typeof onChange>)(listener)
      return () => {
        stops.push('clock')
        stop()
      }
    })
    return { stops, listenSpy, clockSpy }
  }

  it('attaches to its sources (the journal, the clock) once, on the first subscriber', () => {
    const world = createWorld({ clock: NOON })
    const { listenSpy, clockSpy } = spiedSources(world)
    expect(world.events.subscribers).toBe(0)
    world.events.subscribe(() => undefined)
    world.events.subscribe(() => undefined)
    expect(world.events.subscribers).toBe(2)
    expect(listenSpy).toHaveBeenCalledTimes(1)
    expect(clockSpy).toHaveBeenCalledTimes(1)
  })

  it('detaches from its sources after the last subscriber leaves', () => {
    const world = createWorld({ clock: NOON })
    const { stops } = spiedSources(world)
    const first = world.events.subscribe(() => undefined)
    const second = world.events.subscribe(() => undefined)
    first()
    expect(stops).toEqual([])
    second()
    expect(world.events.subscribers).toBe(0)
    expect(stops.sort()).toEqual(['clock', 'journal'])
  })

  it('attaches again for a new subscriber after the last one left', () => {
    const world = createWorld({ clock: NOON })
    const { listenSpy } = spiedSources(world)
    const first = world.events.subscribe(() => undefined)
    const second = world.events.subscribe(() => undefined)
    first()
    second()
    const third = world.events.subscribe(() => undefined)
    expect(listenSpy).toHaveBeenCalledTimes(2)
    third()
  })

  it('builds no journal entry with journalLimit 0, with or without a subscriber (a summary reads no header)', async () => {
    const world = createWorld({ clock: NOON, journalLimit: 0 })
    const before = countedRequest('test-free')
    expect(await world.handle(before.request)).toMatchObject({ status: 200 })
    const baseline = before.listed()

    const { events, stop } = record(world)
    const during = countedRequest('test-free')
    expect(await world.handle(during.request)).toMatchObject({ status: 200 })
    // The event carries a summary: built from what was recorded, without copying (or redacting) the headers.
    expect(during.listed()).toBe(baseline)
    expect(events.filter((event) => event.type === 'request')).toHaveLength(1)
    // A limit of 0 keeps nothing, even while it tells the listeners.
    expect(world.journal.all()).toEqual([])
    stop()

    const after = countedRequest('test-free')
    expect(await world.handle(after.request)).toMatchObject({ status: 200 })
    expect(after.listed()).toBe(baseline)
  })

  it('stops sending events to a listener once it unsubscribed', async () => {
    const world = createWorld({ clock: NOON })
    const { events, stop } = record(world)
    await get(world, '/v1/pets')
    stop()
    await get(world, '/v1/pets')
    world.clock.advance(1_000)
    await world.reset()
    expect(events.map((event) => event.type)).toEqual(['request'])
  })
})

describe('world events: requests', () => {
  it('sends each answered request as its summary, with no headers, bodies or key', async () => {
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    await world.fetch('/v1/pets?x=1', {
      method: 'POST',
      headers: { authorization: 'Bearer test-free', 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":9007199254740993}',
    })
    const [request] = of('request')
    expect(of('request')).toHaveLength(1)
    expect(request?.data).toEqual({
      seq: 1,
      at: NOON_MS,
      time: '2026-06-01T12:00:00.000Z',
      method: 'POST',
      path: '/v1/pets',
      query: 'x=1',
      key: 'free …free',
      plan: 'free',
      operation: 'createPet',
      bodySize: 44,
      bodyTruncated: false,
      status: 201,
      rateLimit: { limit: 60, remaining: 59, reset: NOON_MS / 1000 + 60 },
      code: undefined,
      scenario: 'default',
      rule: 'ok',
      fault: undefined,
      arrival: 1,
      // The summary is built when first read (here after the answer was delivered; the event stream reads it at once).
      delivered: 2,
      durationMs: expect.any(Number),
      delayMs: 0,
      responseBodyTruncated: false,
    })
    for (const field of ['body', 'bodyText', 'requestHeaders', 'responseHeaders', 'responseBody'])
      expect(Object.keys(request?.data ?? {})).not.toContain(field)
    expect(JSON.stringify(request?.data)).not.toContain('test-free')
    expect(request?.data.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('numbers the request events as the journal numbers its entries, answers 401 or 404 included', async () => {
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    await get(world, '/v1/pets/1')
    await world.fetch('/v1/pets')
    await get(world, '/v1/pets/999999')
    expect(of('request').map(({ data }) => [data.seq, data.status, data.code])).toEqual([
      [1, 200, undefined],
      [2, 401, 'unauthorized'],
      [3, 404, 'pet_not_found'],
    ])
    expect(world.journal.all().map((entry) => entry.seq)).toEqual([1, 2, 3])
  })
})

describe('world events: the clock', () => {
  it('sends the clock after each advance, set or useRealTime', () => {
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    world.clock.advance(90_000)
    world.clock.set('2026-07-04T08:30:00Z')
    const before = Date.now()
    world.clock.useRealTime()
    const after = Date.now()
    const clocks = of('clock').map((event) => event.data)
    expect(clocks).toHaveLength(3)
    expect(clocks[0]).toEqual({ now: '2026-06-01T12:01:30.000Z', frozen: true, offsetMs: 0, speed: 1 })
    expect(clocks[1]).toEqual({ now: '2026-07-04T08:30:00.000Z', frozen: true, offsetMs: 0, speed: 1 })
    expect(clocks[2]).toMatchObject({ frozen: false, offsetMs: 0 })
    const real = Date.parse(clocks[2]?.now ?? '')
    expect(real).toBeGreaterThanOrEqual(before)
    expect(real).toBeLessThanOrEqual(after)
  })

  it('sends a running clock with its offset from real time', () => {
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    const target = Date.now() + 3_600_000
    world.clock.set(target, { running: true })
    const [event] = of('clock')
    expect(event?.data.frozen).toBe(false)
    expect(Math.abs((event?.data.offsetMs ?? 0) - 3_600_000)).toBeLessThan(1_000)
  })
})

describe('world events: scenario, reset and state', () => {
  it('sends scenario with the new name once the switch is done', async () => {
    const world = createWorld({ clock: NOON })
    const seen: Array<[string, string]> = []
    world.events.subscribe((event) => {
      if (event.type === 'scenario') seen.push([event.data.scenario, world.scenario])
    })
    await world.useScenario('empty-store')
    expect(seen).toEqual([['empty-store', 'empty-store']])
  })

  it('sends nothing for a switch to an unknown scenario', async () => {
    const world = createWorld({ clock: NOON })
    const { events } = record(world)
    await expect(world.useScenario('no-such-scenario')).rejects.toThrow(/Unknown scenario/)
    expect(events).toEqual([])
  })

  it('sends reset with the current scenario, followed by the clock, then the quota', async () => {
    const world = createWorld({ clock: NOON, scenario: 'empty-store' })
    await get(world, '/v1/pets')
    const { events } = record(world)
    await world.reset()
    const types = events.map((event) => event.type)
    const at = types.indexOf('reset')
    expect(at).toBeGreaterThanOrEqual(0)
    expect(events[at]).toEqual({ type: 'reset', data: { scenario: 'empty-store' } })
    expect(types.slice(at)).toEqual(['reset', 'clock', 'quota'])
    // The reset empties the journal itself: a panel shows why from the reset event, not from a cleared one.
    expect(types).not.toContain('cleared')
    // The reset forgot the request: every key has its whole quota again.
    const quota = events[at + 2]
    expect(quota?.type).toBe('quota')
    if (quota?.type === 'quota') expect(quota.data.find((key) => key.key === 'test-free')?.minuteRemaining).toBe(60)
  })

  it('sends cleared when the journal is emptied, and nothing else with it', async () => {
    const world = createWorld({ clock: NOON, scenario: 'sold-out' })
    await get(world, '/v1/pets')
    const { events } = record(world)
    world.journal.clear()
    expect(events).toEqual([{ type: 'cleared', data: { scenario: 'sold-out' } }])
    expect(world.journal.all()).toEqual([])
  })

  it('sends stage once as a stage of the timeline starts, with its scenario, then the quota', async () => {
    const world = createWorld({ scenario: 'outage-incident' })
    const { events, of } = record(world)
    await get(world, '/v1/pets')
    world.clock.advance(10 * 60_000)
    await get(world, '/v1/pets')
    await get(world, '/v1/pets')
    expect(of('stage')).toEqual([{ type: 'stage', data: { scenario: 'outage-incident', stage: 'outage' } }])
    const types = events.map((event) => event.type)
    expect(types[types.indexOf('stage') + 1]).toBe('quota')
  })

  it('sends state after a restore, with the scenario of the snapshot', async () => {
    const source = createWorld({ clock: NOON, scenario: 'sold-out' })
    const snapshot = source.snapshot()
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    await world.restore(snapshot)
    expect(of('state')).toEqual([{ type: 'state', data: { scenario: 'sold-out' } }])
    expect(of('clock').at(-1)?.data).toEqual({ now: '2026-06-01T12:00:00.000Z', frozen: true, offsetMs: 0, speed: 1 })
  })

  it('sends no state for a snapshot it refuses', async () => {
    const world = createWorld({ clock: NOON })
    const { events } = record(world)
    await expect(world.restore({ version: 1, pets: 'not a list' })).rejects.toThrow()
    expect(events).toEqual([])
  })
})

describe('world events: quota', () => {
  it('coalesces the quota of many requests within 200 ms into one event', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    for (let i = 0; i < 10; i++) await get(world, '/v1/pets?limit=1')
    expect(of('request')).toHaveLength(10)
    vi.advanceTimersByTime(199)
    expect(of('quota')).toHaveLength(0)
    vi.advanceTimersByTime(1)
    expect(of('quota')).toHaveLength(1)
    vi.advanceTimersByTime(1_000)
    expect(of('quota')).toHaveLength(1)

    const [quota] = of('quota')
    expect(quota?.data).toEqual([
      {
        key: 'test-free',
        plan: 'free',
        perMinute: 60,
        perDay: 1000,
        minuteRemaining: 50,
        minuteResetsAt: '2026-06-01T12:01:00.000Z',
        dayRemaining: 990,
        dayResetsAt: '2026-06-02T00:00:00.000Z',
        bannedUntil: null,
      },
      expect.objectContaining({ key: 'test-pro', plan: 'pro', perMinute: 300, perDay: 10000, minuteRemaining: 300, dayRemaining: 10000 }),
      expect.objectContaining({
        key: 'test-business',
        plan: 'business',
        perMinute: 1000,
        perDay: 100000,
        minuteRemaining: 1000,
        dayRemaining: 100000,
      }),
      expect.objectContaining({
        key: 'test-enterprise',
        plan: 'enterprise',
        perMinute: 5000,
        perDay: 1000000,
        minuteRemaining: 5000,
        dayRemaining: 1000000,
      }),
    ])
  })

  it('sends a later quota with less remaining for the key used', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    const remaining = () => of('quota').map((event) => event.data.find((key) => key.key === 'test-pro')?.minuteRemaining)
    await get(world, '/v1/pets', 'test-pro')
    vi.advanceTimersByTime(200)
    for (let i = 0; i < 4; i++) await get(world, '/v1/pets', 'test-pro')
    vi.advanceTimersByTime(200)
    expect(remaining()).toEqual([299, 295])
  })

  it('sends no quota for requests without a valid key', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    await world.fetch('/v1/pets')
    await get(world, '/v1/pets', 'not-a-key')
    vi.advanceTimersByTime(1_000)
    expect(of('request')).toHaveLength(2)
    expect(of('quota')).toEqual([])
  })

  it('shows a ban in the quota', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const world = createWorld({ clock: NOON })
    const { of } = record(world)
    // 60 allowed, the 61st is limited, and the 5th early retry after it is banned for 15 minutes.
    for (let i = 0; i < 66; i++) await get(world, '/v1/pets?limit=1')
    expect(of('request').at(-1)?.data.code).toBe('key_temporarily_banned')
    vi.advanceTimersByTime(200)
    const free = of('quota')
      .at(-1)
      ?.data.find((key) => key.key === 'test-free')
    expect(free).toMatchObject({ minuteRemaining: 0, dayRemaining: 940, bannedUntil: '2026-06-01T12:15:00.000Z' })
  })
})

describe('world events: failing listeners', () => {
  /** A world with a throwing listener and a recording one, after a request, a clock move and a scenario switch. */
  async function withThrowingListener() {
    const world = createWorld({ clock: NOON })
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    world.events.subscribe(() => {
      throw new Error('listener broke')
    })
    const { of } = record(world)
    const response = await get(world, '/v1/pets?limit=1')
    const listed = (await response.json()) as unknown[]
    world.clock.advance(1_000)
    await world.useScenario('empty-store')
    return { world, logged, of, response, listed }
  }

  it('keeps the world going when a listener throws, logging the error', async () => {
    const { world, logged, response, listed } = await withThrowingListener()
    expect(response.status).toBe(200)
    expect(listed.length).toBe(1)
    expect(world.journal.all()).toHaveLength(0) // the switch started the scenario from scratch
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('[petstore-mock]'), expect.any(Error))
  })

  it('keeps the other listeners going when a listener throws', async () => {
    const { of } = await withThrowingListener()
    expect(of('request')).toHaveLength(1)
    expect(of('clock').length).toBeGreaterThanOrEqual(1)
    expect(of('scenario')).toEqual([{ type: 'scenario', data: { scenario: 'empty-store' } }])
  })
})
