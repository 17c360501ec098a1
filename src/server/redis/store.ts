/**
 * One session's pets and quota in Redis (decisions/013-redis-client.md): the `PetData` and the quota the world's core reads,
 * answering later (a round trip) where the in-memory ones answer at once. Every write a request makes is one
 * script (scripts.ts): atomic, whole or not at all. What a scenario switch, a reset or an import changes
 * (pets, next id, counters, clock, scenario) is written by one `REPLACE` when the new pets are loaded; the
 * counters set before it wait for it. A session's first start writes only when no replica has started it.
 */
import type { Clock } from '../../clock.js'
import { parseJson, serializePet } from '../../core/json.js'
import {
  createRateHeaders,
  decisionOf,
  type KeyCounters,
  type QuotaOutcome,
  type QuotaStore,
  type RateLimitOptions,
  roll,
} from '../../core/rate-limit.js'
import type { Added, ApiKey, PetEntry, PetRepository } from '../../core/types.js'
import type { NewPetRecord, PetRecord, PetStatus } from '../../schemas.js'
import { PET_STATUSES } from '../../spec.js'
import type { PetData } from '../../store/pet-data.js'
import type { RedisLink } from './link.js'

/** The sorted-set member of an id: an order key that sorts as the id does (sign, then 19 digits), then the id. */
export function memberOf(id: bigint): string {
  const order = id >= 0n ? `1${id.toString().padStart(19, '0')}` : `0${(id + 2n ** 63n).toString().padStart(19, '0')}`
  return `${order}:${id}`
}

const FIELDS = ['minuteStart', 'minuteCount', 'dayStart', 'dayCount', 'retryAt', 'earlyRetries', 'bannedUntil'] as const

/** A pet read back from its JSON (ids as exact bigints); the JSON is what the API sends. `id` when known already. */
function entryOf(json: string, id?: bigint): PetEntry {
  let pet: PetRecord | undefined
  return {
    json,
    get id() {
      return id ?? this.pet.id
    },
    get pet() {
      if (!pet) {
        const parsed = parseJson(json)
        pet = (parsed.ok ? parsed.value : {}) as PetRecord
      }
      return pet
    },
  }
}

export interface SessionKeys {
  key(name: string): string
}

export const sessionKeys = (session: string): SessionKeys => ({ key: (name) => `petstore-mock:${session}:${name}` })

/** What a `REPLACE` writes besides the pets: the world's current counters, clock and scenario. */
export interface SessionState {
  counters(): Map<string, KeyCounters>
  readonly clock: Clock
  scenario(): string
  /** After a write that replaced the session (not its first start): tell the other replicas. */
  replaced(): void
}

/** The repository: one script or command per call. */
function repositoryOf(link: RedisLink, keys: SessionKeys): PetRepository {
  const indexOf = (status: PetStatus | undefined) => keys.key(status === undefined ? 'ids' : `status:${status}`)
  return {
    async get(id) {
      const json = (await link.command(['HGET', keys.key('pet'), id.toString()])) as string | null
      return json === null ? undefined : entryOf(json)
    },
    async list(status: PetStatus | undefined, limit: number) {
      const found = (await link.run('LIST', [indexOf(status), keys.key('pet')], [String(limit)])) as (string | null)[]
      return { entries: found.filter((json): json is string => json !== null).map((json) => entryOf(json)) }
    },
    async add(pet: NewPetRecord): Promise<Added | undefined> {
      // The JSON after the id: the script puts the id it takes in front.
      const rest = serializePet({ ...pet, id: 0n }).slice('{"id":0'.length)
      const created = [keys.key('last'), keys.key('pet'), keys.key('ids'), indexOf(pet.status)]
      const id = (await link.run('CREATE', created, [rest, pet.status ? '1' : '0'])) as string | null
      return id === null ? undefined : { entry: entryOf(`{"id":${id}${rest}`, BigInt(id)) }
    },
  }
}

export interface RedisPetData extends PetData {
  /** Resolves when the session's first start was written (`true`) or found done by another replica (`false`). */
  readonly started: Promise<boolean>
  /** Whether the first start could not be written (Redis was gone). */
  readonly unseeded: boolean
  /** Writes the first start again, unless another replica has by now; resolves whether it wrote. */
  retrySeed(): Promise<boolean>
}

/**
 * @example
 * const data = createRedisPetData(link, sessionKeys('default'), state)
 */
export function createRedisPetData(link: RedisLink, keys: SessionKeys, state: SessionState): RedisPetData {
  let first = true
  let markStarted: (wrote: boolean) => void = () => undefined
  const started = new Promise<boolean>((resolve) => {
    markStarted = resolve
  })
  let cache: { pets: PetRecord[]; nextId: bigint } = { pets: [], nextId: 1n }
  let unseeded: { args: string[]; cache: typeof cache } | undefined
  const replaceKeys = ['seeded', 'pet', 'ids', 'last', 'rl', 'clock', 'scenario', 'journal', ...PET_STATUSES.map((s) => `status:${s}`)].map(
    keys.key,
  )
  return {
    collection: undefined,
    repository: repositoryOf(link, keys),
    started,
    async load(pets, nextId) {
      const onlyIfNew = first
      first = false
      const highest = pets.reduce((max, pet) => (pet.id > max ? pet.id : max), 0n)
      const next = nextId !== undefined && nextId > highest ? nextId : highest + 1n
      const { frozenAt, offset } = state.clock.snapshot()
      const counters = [...state.counters()].flatMap(([key, c]) => FIELDS.flatMap((field) => [`${key}|${field}`, String(c[field])]))
      const args = [
        onlyIfNew ? '1' : '0',
        (next - 1n).toString(),
        state.scenario(),
        frozenAt === null ? '' : String(frozenAt),
        String(offset),
      ]
      args.push(String(counters.length / 2), ...counters)
      for (const pet of pets) args.push(pet.id.toString(), memberOf(pet.id), pet.status ?? '', serializePet(pet))
      try {
        const wrote = (await link.run('REPLACE', replaceKeys, args)) === 1
        cache = { pets: [...pets], nextId: next }
        if (onlyIfNew) markStarted(wrote)
        else state.replaced()
      } catch (error) {
        if (onlyIfNew) {
          // Redis was gone at the session's first start: the start is tried again before its next request.
          unseeded = { args, cache: { pets: [...pets], nextId: next } }
          markStarted(false)
        }
        throw error
      }
    },
    get unseeded() {
      return unseeded !== undefined
    },
    async retrySeed() {
      if (!unseeded) return false
      const wrote = (await link.run('REPLACE', replaceKeys, unseeded.args)) === 1
      if (wrote) cache = unseeded.cache
      unseeded = undefined
      return wrote
    },
    snapshot: () => cache,
    async settled() {
      await started
      // The state as Redis has it now (an export, the admin API's GET /__mock/state).
      const all = (await link.command(['HVALS', keys.key('pet')])) as string[]
      const last = (await link.command(['GET', keys.key('last')])) as string | null
      const pets = all.map((json) => entryOf(json).pet).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      cache = { pets, nextId: BigInt(last ?? '0') + 1n }
    },
  }
}

/** What `CONSUME` answered: the outcome `countRequest` would give, and the key's counters after it. */
export function consumeReplyOf(reply: readonly string[]): { outcome: QuotaOutcome; counters: KeyCounters } {
  const [type, limit, third, fourth] = reply
  const outcome: QuotaOutcome =
    type === 'ok'
      ? { type, limit: Number(limit), resetAt: Number(third), remaining: Number(fourth) }
      : type === 'limited'
        ? { type, limit: Number(limit), resetAt: Number(third), day: fourth === '1' }
        : { type: type as 'ban' | 'banned', limit: Number(limit), until: Number(third) }
  const counters = Object.fromEntries(FIELDS.map((field, i) => [field, Number(reply[4 + i])])) as unknown as KeyCounters
  return { outcome, counters }
}

/**
 * The quota of a session in Redis: each request is counted by `CONSUME`, atomically across replicas. What the
 * admin side reads (`counters`, the panel's Keys table) is what this replica saw last; what it sets is written to Redis.
 *
 * @example
 * const quota = createRedisQuota(link, sessionKeys('default'), { now: clock.now, options })
 */
export function createRedisQuota(
  link: RedisLink,
  keys: SessionKeys,
  {
    now,
    options,
    unauthenticated,
    ready,
  }: { now: () => number; options: RateLimitOptions; unauthenticated: () => Record<string, string>; ready: () => Promise<void> },
): QuotaStore {
  const seen = new Map<string, KeyCounters>()
  const rateHeaders = createRateHeaders()
  return {
    async consume(key: ApiKey) {
      await ready()
      const at = now()
      const reply = (await link.run(
        'CONSUME',
        [keys.key('rl')],
        [
          key.key,
          String(key.limits.perMinute),
          String(key.limits.perDay),
          String(at),
          String(options.banAfterEarlyRetries),
          String(options.banDurationMs),
        ],
      )) as string[]
      const { outcome, counters } = consumeReplyOf(reply)
      seen.set(key.key, counters)
      return decisionOf(outcome, key, at, options, rateHeaders)
    },
    unauthenticated,
    counters: (key) => {
      const counters = seen.get(key)
      return counters ? roll({ ...counters }, now()) : undefined
    },
    setCounters(key, counters) {
      seen.set(key, { ...counters })
      // Written at once: a stage's entry, or POST /__mock/keys/:key, is followed by no REPLACE (test/redis/redis.test.ts).
      // Sent before any later command of this replica, so its next CONSUME counts from these counters.
      const written = link.command(['HSET', keys.key('rl'), ...FIELDS.flatMap((field) => [`${key}|${field}`, String(counters[field])])])
      written.catch(() => undefined)
      return written
    },
    snapshot: () => Object.fromEntries([...seen].map(([key, counters]) => [key, { ...counters }])),
    reset() {
      seen.clear()
    },
  }
}
