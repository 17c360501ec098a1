/**
 * `createWorld(options)`: one isolated Pet Store world (data, keys, clock, counters, scenario,
 * journal) and the host-free ways to reach it: the plain `handle` the hosts call and a `fetch`
 * function. It loads neither msw nor @msw/data: `createPetStore` adds those for in-process use,
 * and the standalone server's sessions are worlds without them (fast start, small memory).
 */
import type { Clock } from '../clock.js'
import { createApi } from '../core/api.js'
import type { KeyStatus } from '../core/key-status.js'
import { createRateLimiter, type QuotaStore, type RateLimitOptions } from '../core/rate-limit.js'
import type { ApiKey, ApiRequest, ApiResponse, ApiResult, PetRepository } from '../core/types.js'
import { createFetch } from '../handlers/fetch.js'
import { type AuditReport, auditJournal } from '../journal/audit.js'
import { createJournalBudget, type JournalBudget } from '../journal/budget.js'
import { type SpecCoverage, specCoverage } from '../journal/coverage.js'
import { createJournal, type Journal } from '../journal/journal.js'
import { type ScenarioCatalogue, unknownScenarioMessage } from '../scenarios/catalogue.js'
import type { NewPetRecord, PetRecord } from '../schemas.js'
import { parseSnapshot, type SteppedSnapshot, steppedOf, type WorldSnapshot } from '../snapshot.js'
import { parseSnapshotInSlices } from '../snapshot-slices.js'
import { createIndexOnlyData, type PetCollection, type PetData } from '../store/pet-data.js'
import { type AnswerListener, announcing } from './answers.js'
import { createWorldEvents, keyStatuses, type WorldEvents } from './events.js'
import { misuse, type PetStoreOptions, resolveOptions } from './options.js'
import { withExplain, withJournal, withScenarioHeader, withStoreFailures } from './pipeline.js'
import { withProxy } from './proxy.js'
import { type ActiveScenario, createScenarioSwitch, type ScenarioSwitch } from './scenario-switch.js'
import type { TimelineView } from './timeline.js'

/** Makes a shared quota (`--redis`) for a world, from its clock and rate-limit options. */
export type SharedQuota = (parts: {
  now: () => number
  options: RateLimitOptions
  unauthenticated: () => Record<string, string>
}) => QuotaStore

/** Makes the listener that traces a world's answers (src/world/tracing.ts), for a world made with `tracing: true`. */
export type TraceAnswers = (world: { readonly basePath: string; scenario(): string }) => AnswerListener

/**
 * What a host shares with its worlds: the journals' byte budget, a shared quota (`--redis`) instead of local counters,
 * and the tracing listener (Node hosts only, so the browser bundle never loads OpenTelemetry).
 */
export interface WorldShared {
  journalBudget?: JournalBudget
  quota?: SharedQuota
  traceAnswers?: TraceAnswers
}

export interface World {
  /** The msw URL pattern of the API's base (`*\/v1` by default), for the handlers. */
  readonly urlPattern: string
  /** A `fetch` function answered by this world directly, without interception. */
  readonly fetch: typeof fetch
  /** The path the API lives under, e.g. `/v1`. */
  readonly basePath: string
  /** The whole pipeline: a plain request in, a plain response out. Hosts call this. */
  readonly handle: (request: ApiRequest) => ApiResult
  /** Hosts call this when they hand a response of `handle` to the client (the retry audit tells in-flight requests from retries). */
  readonly markDelivered: (response: ApiResponse) => void
  /** The pets, as an @msw/data collection: read and write them in test set-up. */
  readonly pets: PetCollection
  readonly clock: Clock
  /** The known API keys. */
  readonly keys: ReadonlyMap<string, ApiKey>
  /** The rate limiter's counters (in memory, or what this replica saw last of a shared quota). */
  readonly rateLimiter: QuotaStore
  /** The last exchanges this world answered, newest last. */
  readonly journal: Journal
  /** Did each key honour Retry-After and back off? Computed from the journal. */
  audit(): AuditReport
  /** Which documented answers, headers and rules of the spec the journal's traffic exercised (docs/in-process.md). */
  coverage(): SpecCoverage
  /** The current scenario's timeline: its stages, the one now, and the journal's answers in each; `undefined` without one. */
  timeline(): TimelineView | undefined
  /** Each key's plan, what it has left this minute and day, and its ban: the control panel's Keys table. */
  keyStatuses(): KeyStatus[]
  /** Live events (requests, clock, scenario, quota) for the control panel; free while nobody subscribes. */
  readonly events: WorldEvents
  /** The whole state: pets, next id, counters and bans, clock. */
  snapshot(): WorldSnapshot
  /**
   * Replaces the whole state with a snapshot (checked first: a bad one changes nothing and throws). With `pause`, a
   * snapshot's text is read and stored a slice of pets at a time, `pause()` awaited between slices: a host that serves
   * requests meanwhile (the standalone server) gives one that yields to them.
   */
  restore(snapshot: unknown, options?: { pause?: () => Promise<void> }): Promise<void>
  /**
   * Stores `pets` under the next ids, one by one as `POST /pets` does (no quota counted, no journal entry); answers them
   * as stored. Stops early when no int64 id is left.
   */
  addPets(pets: readonly NewPetRecord[]): Promise<PetRecord[]>
  /** The name of the current scenario. */
  readonly scenario: string
  /** Switches this world to a scenario: its data, keys, counters, clock and faults, from scratch. Throws for an unknown name. */
  useScenario(name: string): Promise<void>
  readonly scenarios: ScenarioCatalogue
  /** Resolves when the collection holds every pet written so far. */
  ready(): Promise<void>
  /** Back to the seeded state of the current scenario: pets, ids, counters, bans, journal; the clock returns to the scenario's start, else to the `clock` option's moment, else real time. */
  reset(): Promise<void>
}

/** A world as the standalone server holds it: the public `World`, and what its state file and replicas use of it. */
export interface ServerWorld extends World {
  /** The whole state with the pets read from the storage as a writer writes them (`SteppedSnapshot`): nothing is copied. */
  snapshotInSteps(): SteppedSnapshot
  /**
   * Takes on the keys and faults of scenario `name`, nothing else: a replica (`--redis`) follows another one's switch,
   * whose pets, counters and clock are already in the shared store.
   */
  adopt(name: string): void
}

/** A world's state around the pets and next id its storage gives (whole, or read in steps). */
function stateWith<P>(storage: { pets: P; nextId: bigint }, rateLimiter: QuotaStore, clock: Clock, active: ActiveScenario) {
  const { pets, nextId } = storage
  const state = {
    version: 1 as const,
    pets,
    nextId,
    rateLimits: rateLimiter.snapshot(),
    clock: clock.snapshot(),
    scenario: active.scenario.name,
  }
  // A running timeline goes on where it was when the state comes back (a restart with --state-file, PUT /__mock/state).
  return active.timeline ? { ...state, timeline: active.timeline.place() } : state
}

/**
 * Creates one isolated Pet Store world without msw (hosts that need none use it; in tests, use
 * `createPetStore`). `data` keeps its pets: by default in the indexes only. `shared.journalBudget`
 * caps the journals of several worlds together (the server's sessions).
 *
 * @example
 * const world = createWorld({ seed: 7 })
 * const response = await world.fetch('/v1/pets', { headers: { Authorization: 'Bearer test-free' } })
 */
export function createWorld(options: PetStoreOptions = {}, data: PetData = createIndexOnlyData(), shared: WorldShared = {}): ServerWorld {
  const resolved = resolveOptions(options)
  const { clock, basePath, scenarios: catalogue } = resolved
  const local = createRateLimiter({ now: clock.now, options: resolved.rateLimit })
  // This process's rate limiter, or the shared quota a host gives (`--redis`).
  const rateLimiter = shared.quota
    ? shared.quota({ now: clock.now, options: resolved.rateLimit, unauthenticated: () => local.unauthenticated() })
    : local
  const keys = new Map<string, ApiKey>()
  const budget = shared.journalBudget ?? createJournalBudget(resolved.journalMaxBytes)
  const journal = createJournal({ limit: resolved.journalLimit, now: clock.now, budget })
  const core = createApi({ basePath, keys, pets: data.repository, quota: rateLimiter, now: clock.now, options: resolved.api })
  // The events are made after the scenarios (they read the current one): a stage's start reaches them through this.
  let stageStarted = (_stage: string): void => {}
  const parts = { options: resolved, core, keys, rateLimiter, clock, journal, data }
  const scenarios = createScenarioSwitch({ ...parts, stageStarted: (stage) => stageStarted(stage) })
  void scenarios.start(resolved.scenario, true).catch(() => undefined)
  const events = createWorldEvents({ journal, clock, keys, rateLimiter, scenario: () => scenarios.current.name })
  stageStarted = (stage) => events.stage(stage)
  /** Tells the event listeners once `done` has settled (a failed switch changed nothing). */
  const announce = (done: Promise<void>, type: 'scenario' | 'reset' | 'state'): Promise<void> => done.then(() => events.changed(type))

  // The pipeline, outermost first: the answers' listeners (traces) -> journal -> explain (X-Mock-Reason when asked) -> proxy (what the mock does not define) -> X-Mock-Scenario -> faults -> core.
  const scenarioStep = withScenarioHeader(scenarios.active, {
    catalogue,
    oneOff: (name) => createWorld({ ...options, scenario: name, journalLimit: 0, tracing: false }),
  })
  const routed = resolved.proxy ? withProxy(scenarioStep, { ...resolved.proxy, basePath }) : scenarioStep
  // A shared store may be unreachable: a failed answer becomes a 503.
  const guarded = shared.quota ? withStoreFailures(routed, basePath) : routed
  const pipeline = withJournal(withExplain(guarded, { always: resolved.explain, active: scenarios.active }), journal, scenarios.active)
  const { handle } = announcing(pipeline, listenersOf(resolved.tracing, shared, { basePath, scenario: () => scenarios.current.name }))

  return {
    urlPattern: resolved.urlPattern,
    fetch: createFetch(handle, pipeline.markDelivered),
    markDelivered: pipeline.markDelivered,
    basePath,
    handle,
    get pets() {
      return collectionOf(data)
    },
    clock,
    keys,
    rateLimiter,
    journal,
    audit: () => auditJournal(journal.all()),
    coverage: () => specCoverage(journal.all()),
    timeline: () => scenarios.active.timeline?.view(journal.all()),
    keyStatuses: () => keyStatuses(keys, rateLimiter, clock.now()),
    events,
    scenarios: catalogue,
    get scenario() {
      return scenarios.current.name
    },
    async useScenario(name) {
      const next = catalogue.get(name)
      scenarioStep.forget()
      await announce(scenarios.start(next), 'scenario')
    },
    ready: () => data.settled(),
    snapshot: () => stateWith(data.snapshot(), rateLimiter, clock, scenarios.active),
    snapshotInSteps: () =>
      data.snapshotInSteps
        ? stateWith(data.snapshotInSteps(), rateLimiter, clock, scenarios.active)
        : steppedOf(stateWith(data.snapshot(), rateLimiter, clock, scenarios.active)),
    restore: (input, options) => announce(restoreWorld(input, { catalogue, scenarios, rateLimiter, clock, data }, options?.pause), 'state'),
    async addPets(pets) {
      const stored = await storeAll(data.repository, pets)
      events.changed('state')
      return stored
    },
    reset: () => announce(scenarios.start(scenarios.current), 'reset'),
    adopt(name) {
      if (name === scenarios.current.name) return
      scenarioStep.forget()
      scenarios.apply(catalogue.get(name))
    },
  }
}

/** The world's @msw/data collection; a misuse for storage without one. */
function collectionOf(data: PetData): PetCollection {
  if (!data.collection) {
    misuse(
      'This world has no @msw/data collection (created with collection: false, as the standalone server does). Use the API, or GET /__mock/state.',
    )
  }
  return data.collection
}

/** Stores `pets` one by one under the next ids, as `POST /pets` does; stops when no int64 id is left. */
async function storeAll(repository: PetRepository, pets: readonly NewPetRecord[]): Promise<PetRecord[]> {
  const stored: PetRecord[] = []
  for (const pet of pets) {
    const added = await repository.add(pet)
    if (!added) break
    stored.push(added.entry.pet)
  }
  return stored
}

/**
 * The listeners of a world's answers: its traces, when asked for (`tracing: true`) and the host can make them. A one-off
 * world (`X-Mock-Scenario`) is made with `tracing: false`: it answers inside this world's pipeline, whose listeners hear.
 */
function listenersOf(tracing: boolean, shared: WorldShared, world: Parameters<TraceAnswers>[0]): AnswerListener[] {
  if (!tracing) return []
  if (shared.traceAnswers === undefined)
    misuse('tracing: true needs a Node host (petstore-mock or petstore-mock/node), not petstore-mock/browser.')
  return [shared.traceAnswers(world)]
}

/**
 * Replaces a world's state with a snapshot, checked first: a bad one changes nothing and throws. With `pause`, text is
 * read and the pets stored a slice at a time (src/snapshot-slices.ts), the old state answering until the end.
 */
async function restoreWorld(
  input: unknown,
  parts: { catalogue: ScenarioCatalogue; scenarios: ScenarioSwitch; rateLimiter: QuotaStore; clock: Clock; data: PetData },
  pause: (() => Promise<void>) | undefined,
): Promise<void> {
  const { catalogue, scenarios, rateLimiter, clock, data } = parts
  const result = pause && typeof input === 'string' ? await parseSnapshotInSlices(input, pause) : parseSnapshot(input)
  if (!result.ok) misuse(result.message)
  const { snapshot } = result
  if (snapshot.scenario !== undefined && !catalogue.has(snapshot.scenario))
    misuse(`Invalid state: scenario: ${unknownScenarioMessage(snapshot.scenario, catalogue.names())}`)
  // The pets first (in slices, they are swapped in at the end), then the rest in the same turn of the event loop.
  await data.load(snapshot.pets as PetRecord[], snapshot.nextId, pause)
  // The clock before the scenario: a timeline the snapshot does not place starts at the restored moment.
  clock.restore(snapshot.clock)
  scenarios.apply(snapshot.scenario === undefined ? scenarios.current : catalogue.get(snapshot.scenario), snapshot.timeline)
  rateLimiter.reset()
  for (const [key, counters] of Object.entries(snapshot.rateLimits)) rateLimiter.setCounters(key, counters)
}
