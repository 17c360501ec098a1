/**
 * Worlds whose state lives in Redis (`--redis`; docs/replicas.md, docs/spec-decisions.md row 58): any number of
 * server processes pointed at one Redis behave as one server. Each session's pets, next id, status indexes,
 * rate-limit counters and bans, clock and scenario are in Redis; a replica keeps only what it derives from them (the
 * scenario's keys and faults, a copy of the clock) and follows the others through pub/sub: a clock move, a scenario
 * switch, a reset or an import on one is applied by all. Every answered request is added to the session's capped
 * journal list in Redis and published, so a control panel on any replica sees every replica's requests.
 */
import { type Clock, createClock } from '../../clock.js'
import type { JournalBudget } from '../../journal/budget.js'
import { createWorld, type ServerWorld } from '../../world/create-world.js'
import type { PetStoreOptions } from '../../world/options.js'
import type { ChangeMessage, RedisLink } from './link.js'
import { createRedisPetData, createRedisQuota, type SessionKeys, sessionKeys } from './store.js'

/** How many summaries a session's journal list in Redis keeps. */
export const SHARED_JOURNAL_MAX = 1_000

const isClock = (value: unknown): value is Clock => typeof value === 'object' && value !== null && 'now' in value && 'advance' in value

/** Reads the clock and scenario Redis holds and takes them on, without telling the others (they told us). */
async function follow(link: RedisLink, keys: SessionKeys, world: ServerWorld, applying: { remote: boolean }): Promise<void> {
  const [[frozenAt, offset], scenario] = (await Promise.all([
    link.command(['HMGET', keys.key('clock'), 'frozenAt', 'offset']),
    link.command(['GET', keys.key('scenario')]),
  ])) as [(string | null)[], string | null]
  applying.remote = true
  try {
    // The clock first: a scenario taken on starts its timeline at the clock's now, which must be the switch's clock (the
    // scenario's start), not the one this replica had (test/redis/redis.test.ts, a timeline stage on both replicas).
    if (typeof offset === 'string')
      world.clock.restore({ frozenAt: typeof frozenAt === 'string' ? Number(frozenAt) : null, offset: Number(offset) })
    if (scenario !== null && world.scenarios.has(scenario)) world.adopt(scenario)
  } finally {
    applying.remote = false
  }
}

/** Batches the session's answered requests every 50 ms: one script adds them to the Redis journal list, one message tells the others. */
function journalMirror(link: RedisLink, keys: SessionKeys, session: string) {
  let batch: unknown[] = []
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    timer = undefined
    const summaries = batch
    batch = []
    const texts = summaries.map((summary) => JSON.stringify(summary))
    link.run('JOURNAL', [keys.key('journal')], [String(SHARED_JOURNAL_MAX), ...texts]).catch(() => undefined)
    link.publish({ session, type: 'request', data: summaries })
  }
  return (_seq: number, summarize: () => unknown) => {
    batch.push(summarize())
    if (timer === undefined) timer = setTimeout(flush, 50)
  }
}

export interface SharedWorlds {
  /** A session's world over Redis (the server's sessions call it on first use of a name). */
  worldFor(session: string, shared: { journalBudget?: JournalBudget }): ServerWorld
}

/**
 * @example
 * const shared = createSharedWorlds(link, options)
 * const sessions = createSessions(options, 1000, undefined, shared.worldFor)
 */
export function createSharedWorlds(link: RedisLink, options: PetStoreOptions): SharedWorlds {
  const following = new Map<string, (message: ChangeMessage) => void>()
  link.onChange((message) => following.get(message.session)?.(message))

  return {
    worldFor(session, shared) {
      const keys = sessionKeys(session)
      const { clock: given, clockSpeed, ...rest } = options
      // The replica's copy of the session's clock, at the pace the server was given (`--clock-speed`): Redis keeps
      // the moment, each replica the pace (src/clock.ts, `snapshot`).
      const clock = isClock(given) ? given : createClock(Date.now, { speed: clockSpeed ?? 1 })
      if (given !== undefined && !isClock(given)) clock.set(given)
      let world: ServerWorld | undefined
      let quota: ReturnType<typeof createRedisQuota> | undefined
      // Requests wait until this replica has caught up with a session another one started (its clock, its scenario).
      let caughtUp: Promise<void> = Promise.resolve()
      let seeding: Promise<void> | undefined
      /** The session's first start failed (Redis was gone): write it now, or follow the replica that did. */
      const seedAgain = (): Promise<void> => {
        const attempt =
          seeding ??
          data
            .retrySeed()
            .then((wrote) => (wrote || !world ? undefined : follow(link, keys, world, applying)))
            .finally(() => {
              seeding = undefined
            })
        seeding = attempt
        caughtUp = attempt.catch(() => undefined)
        return attempt
      }
      const applying = { remote: false }
      const data = createRedisPetData(link, keys, {
        counters: () => new Map(Object.entries(quota?.snapshot() ?? {})),
        clock,
        scenario: () => world?.scenario ?? (typeof options.scenario === 'string' ? options.scenario : 'default'),
        replaced: () => link.publish({ session, type: 'state' }),
      })
      world = createWorld({ ...rest, clock }, data, {
        ...shared,
        quota: (parts) => {
          quota = createRedisQuota(link, keys, { ...parts, ready: () => (data.unseeded ? seedAgain() : caughtUp) })
          return quota
        },
      })
      const self = world
      // A session another replica started first: take on its scenario and clock.
      caughtUp = data.started.then((wrote) => (wrote ? undefined : follow(link, keys, self, applying))).catch(() => undefined)
      clock.onChange?.(() => {
        if (applying.remote) return
        const { frozenAt, offset } = clock.snapshot()
        const fields = frozenAt === null ? ['offset', String(offset)] : ['frozenAt', String(frozenAt), 'offset', String(offset)]
        const write = frozenAt === null ? link.command(['HDEL', keys.key('clock'), 'frozenAt']) : Promise.resolve()
        void write
          .then(() => link.command(['HSET', keys.key('clock'), ...fields]))
          .then(() => link.publish({ session, type: 'clock' }))
          .catch(() => undefined)
      })
      self.journal.listen(journalMirror(link, keys, session))
      following.set(session, (message) => {
        if (message.type === 'request') {
          for (const data of message.data as never[]) self.events.relay({ type: 'request', seq: 0, data })
          return
        }
        void follow(link, keys, self, applying).then(() => {
          if (message.type === 'state') {
            quota?.reset()
            self.journal.clear()
            self.events.changed('state')
          }
        })
      })
      self.events.subscribe((event) => {
        if (event.type === 'gone') following.delete(session)
      })
      return self
    },
  }
}
