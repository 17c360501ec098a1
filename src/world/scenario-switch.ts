/**
 * A world's current scenario: its keys and fault rules over the core, and starting it from scratch
 * (data, counters, clock). A scenario is checked before anything changes, so a bad one changes nothing.
 */
import type { Clock } from '../clock.js'
import type { Api } from '../core/api.js'
import { type FaultRule, withFaults } from '../core/faults.js'
import { createRandom } from '../core/random.js'
import type { QuotaStore } from '../core/rate-limit.js'
import type { ApiKey } from '../core/types.js'
import type { JournalRecorder } from '../journal/journal.js'
import { resolveKeys } from '../keys.js'
import type { Scenario } from '../scenarios/schema.js'
import type { PetRecord } from '../schemas.js'
import type { PetData } from '../store/pet-data.js'
import { keyCounters } from './key-start.js'
import { misuse, type ResolvedOptions } from './options.js'
import { petsAreGenerated, startingPets } from './starting-pets.js'
import { type Stage, stagesOf, type TimelinePlace, type TimelineStep, withTimeline } from './timeline.js'

/** What answers now, as plain fields the request path reads without a call. */
export interface ActiveScenario {
  /** The core with the current scenario's faults around it (the core itself when it has none). */
  readonly api: Api
  /** The current scenario (`ScenarioSwitch.current`). */
  readonly scenario: Scenario
  /** Its timeline, when it has one, started with it (`api` plays it). */
  readonly timeline?: TimelineStep | undefined
}

export interface ScenarioSwitch {
  /** Changed in place by `start` and `apply`. */
  readonly active: ActiveScenario
  readonly current: Scenario
  /** Starts `next` from scratch: keys, faults, pets, counters, journal, and the clock (to the scenario's start, else the world's `clock` option, else real time; left alone when `first`). */
  start(next: Scenario, first?: boolean): Promise<void>
  /**
   * Puts the keys and faults of `next` in place, nothing else (a state restore brings the rest); its timeline goes on
   * from `resume` when given (a snapshot's), else starts at the clock's now.
   */
  apply(next: Scenario, resume?: TimelinePlace): void
}

export interface ScenarioParts {
  readonly options: ResolvedOptions
  readonly core: Api
  /** The world's key lookup, which the core reads: filled in place. */
  readonly keys: Map<string, ApiKey>
  readonly rateLimiter: QuotaStore
  readonly clock: Clock
  readonly journal: Pick<JournalRecorder, 'empty'>
  readonly data: PetData
  /** Told when a stage of the current scenario's timeline starts (the world's event stream). */
  readonly stageStarted?: (stage: string) => void
}

type KeyStarts = NonNullable<NonNullable<Scenario['keys']>['start']>

/** Starts keys at the counters a scenario or a stage of its timeline states (`keys.start`). */
function startCounters(
  start: KeyStarts | undefined,
  keys: ReadonlyMap<string, ApiKey>,
  rateLimiter: QuotaStore,
  now: number,
  from: 'nothing' | 'current',
): void {
  for (const [name, counters] of Object.entries(start ?? {})) {
    for (const key of name === '*' ? [...keys.values()] : [keys.get(name) as ApiKey]) {
      const current = from === 'current' ? rateLimiter.counters(key.key) : undefined
      // Not waited for: a shared store sends its write before the request's own count (`QuotaStore.setCounters`).
      void rateLimiter.setCounters(key.key, keyCounters(key, counters, now, current))
    }
  }
}

/**
 * @example
 * const scenarios = createScenarioSwitch({ options, core, keys, rateLimiter, clock, journal, data })
 * await scenarios.start(options.scenarios.get('rate-limited'))
 */
export function createScenarioSwitch(parts: ScenarioParts): ScenarioSwitch {
  const { options, core, keys, rateLimiter, clock, journal, data } = parts
  const active: { api: Api; scenario: Scenario; timeline?: TimelineStep | undefined } = { api: core, scenario: options.scenario }
  /**
   * The last scenario's starting pets when they were given as data. Pets generated from a seed are generated again
   * at each start: kept, they were records held beside the stored pets for the world's life, which every full
   * collection marked (test/regressions/seeded-pets-heap.test.ts: a reset brings back the very same pets).
   */
  let given: { scenario: Scenario; pets: PetRecord[] } | undefined

  /** Checks a scenario's keys and returns what puts it in place. */
  const prepare = (next: Scenario) => {
    const resolved = resolveKeys(next.keys?.list ?? options.keys)
    for (const name of Object.keys(next.keys?.start ?? {})) {
      if (name !== '*' && !resolved.has(name))
        misuse(`scenario "${next.name}" keys.start.${name}: no such key. Known keys: ${[...resolved.keys()].join(', ')}.`)
    }
    return () => {
      keys.clear()
      for (const [name, key] of resolved) keys.set(name, key)
      const seed = next.seed ?? options.seed
      active.api = next.faults?.length
        ? // The schema gives each latency exactly the fields of its distribution (`latencyFields`).
          withFaults(core, {
            rules: next.faults as readonly FaultRule[],
            random: createRandom(seed ^ 0x9e3779b9),
            basePath: options.basePath,
            scenario: next.name,
          })
        : core
      active.scenario = next
      active.timeline = undefined
    }
  }
  /** Starts the timeline of the current scenario from the clock's now, around its faults (`prepare` checked it). */
  const startTimeline = (next: Scenario, stages: ReturnType<typeof stagesOf>, resume?: TimelinePlace) => {
    if (stages.length === 0) return
    const random = createRandom((next.seed ?? options.seed) ^ 0x85ebca6b)
    const enter = (stage: Stage, now: number) => {
      // What the stage's entry leaves out keeps the key's use and ban, as `POST /__mock/keys/:key` does: a stage that
      // uses up the minute does not lift a ban the client earned (test/scenarios/timeline.test.ts).
      startCounters(stage.input.keys?.start, keys, rateLimiter, now, 'current')
      parts.stageStarted?.(stage.name)
    }
    active.timeline = withTimeline(active.api, { scenario: next, stages, clock, random, basePath: options.basePath, enter, resume })
    active.api = active.timeline
  }

  return {
    active,
    get current() {
      return active.scenario
    },
    apply(next, resume) {
      const stages = stagesOf(next)
      prepare(next)()
      startTimeline(next, stages, resume)
    },
    start(next, first = false) {
      const stages = stagesOf(next)
      const commit = prepare(next)
      const pets = given?.scenario === next ? given.pets : startingPets(options, next)
      given = petsAreGenerated(options, next) ? undefined : { scenario: next, pets }
      commit()
      rateLimiter.reset()
      journal.empty()
      if (next.clock) clock.set(next.clock.start, { running: !next.clock.frozen })
      else if (!first && options.clockStart !== undefined) clock.set(options.clockStart)
      else if (!first) clock.useRealTime()
      startCounters(next.keys?.start, keys, rateLimiter, clock.now(), 'nothing')
      startTimeline(next, stages)
      return data.load(pets)
    },
  }
}
