/**
 * A world's live events, for the control panel and any tool that follows a world (`GET /__mock/events`):
 * each answered request, the clock's moves, scenario switches, resets and imports, and the keys' quota.
 * Without subscribers it listens to nothing, so the hot path pays nothing for it (events.test.ts, "costs nothing
 * without subscribers"; `npm run bench -- --only=events` measures the cost with one).
 */
import type { Clock } from '../clock.js'
import { type KeyStatus, keyStatus } from '../core/key-status.js'
import type { QuotaStore } from '../core/rate-limit.js'
import type { ApiKey } from '../core/types.js'
import type { JournalRecorder, JournalSummary } from '../journal/journal.js'

/** The clock as the admin API and the panel show it. */
export interface ClockView {
  /** The clock's time, ISO 8601. */
  readonly now: string
  readonly frozen: boolean
  /** How far a running clock is from real time, in ms. */
  readonly offsetMs: number
  /** Virtual ms a running clock moves in a real ms (`--clock-speed`; 1: real pace). */
  readonly speed: number
}

export type WorldEvent =
  /** An answered request: `seq` at once, `data` (its summary) built when first read. */
  | { readonly type: 'request'; readonly seq: number; readonly data: JournalSummary }
  | { readonly type: 'quota'; readonly data: readonly KeyStatus[] }
  | { readonly type: 'clock'; readonly data: ClockView }
  | { readonly type: 'scenario' | 'reset' | 'state'; readonly data: { readonly scenario: string } }
  /** The journal was emptied (`DELETE /__mock/requests`, `journal.clear()`; a reset and a scenario switch also empty it). */
  | { readonly type: 'cleared'; readonly data: { readonly scenario: string } }
  /** A stage of the scenario's timeline started (its first request came in). */
  | { readonly type: 'stage'; readonly data: { readonly scenario: string; readonly stage: string } }
  /** The world is gone (the server evicted its session): listeners are dropped after this one. */
  | { readonly type: 'gone'; readonly data: { readonly scenario: string } }

export interface WorldEvents {
  /** Calls `listener` with every event from now on; returns the function that stops it. */
  subscribe(listener: (event: WorldEvent) => void): () => void
  readonly subscribers: number
  /** The world tells its listeners that it switched scenario, was reset or had its state replaced. */
  changed(type: 'scenario' | 'reset' | 'state'): void
  /** Tells the listeners a stage of the scenario's timeline started, then the quota (the stage may have set counters). */
  stage(name: string): void
  /** Tells the listeners the world is gone, then drops them (the server evicted its session). */
  end(): void
  /** Passes on an event that happened elsewhere (another replica, `--redis`). */
  relay(event: WorldEvent): void
}

/** The quota of many requests is sent once: at most one `quota` event per this many ms. */
const QUOTA_EVERY_MS = 200

export function clockView(clock: Clock): ClockView {
  const { frozenAt, offset } = clock.snapshot()
  return { now: new Date(clock.now()).toISOString(), frozen: frozenAt !== null, offsetMs: offset, speed: clock.speed ?? 1 }
}

export function keyStatuses(keys: ReadonlyMap<string, ApiKey>, rateLimiter: QuotaStore, now: number): KeyStatus[] {
  return [...keys.values()].map((key) => keyStatus(key, rateLimiter.counters(key.key), now))
}

/**
 * A `request` event: its summary built when first read. A class, not an object literal with a getter, which would make
 * a new getter function for every request while anyone listens.
 */
class RequestEvent {
  readonly type = 'request'
  readonly #summarize: () => JournalSummary
  constructor(
    readonly seq: number,
    summarize: () => JournalSummary,
  ) {
    this.#summarize = summarize
  }
  get data(): JournalSummary {
    return this.#summarize()
  }
}

/** Listens to the journal and the clock; returns what stops it. */
function follow(
  { journal, clock, scenario }: { journal: JournalRecorder; clock: Clock; scenario: () => string },
  emit: (event: WorldEvent) => void,
  quotaSoon: () => void,
  stopQuota: () => void,
): () => void {
  const stopJournal = journal.listen((seq, summarize, counted) => {
    emit(new RequestEvent(seq, summarize))
    if (counted) quotaSoon()
  })
  const stopClear = journal.onClear(() => emit({ type: 'cleared', data: { scenario: scenario() } }))
  const stopClock = clock.onChange?.(() => {
    emit({ type: 'clock', data: clockView(clock) })
    quotaSoon()
  })
  return () => {
    stopJournal()
    stopClear()
    stopClock?.()
    stopQuota()
  }
}

/**
 * @example
 * const events = createWorldEvents({ journal, clock, keys, rateLimiter, scenario: () => 'default' })
 * const stop = events.subscribe((event) => console.log(event.type))
 */
export function createWorldEvents(parts: {
  journal: JournalRecorder
  clock: Clock
  keys: ReadonlyMap<string, ApiKey>
  rateLimiter: QuotaStore
  scenario: () => string
}): WorldEvents {
  const { clock, keys, rateLimiter, scenario } = parts
  const listeners = new Set<(event: WorldEvent) => void>()
  let detach: (() => void) | undefined
  let quotaTimer: ReturnType<typeof setTimeout> | undefined

  const emit = (event: WorldEvent) => {
    // Not copied first: this runs for every request while anyone listens, and a listener that stops is skipped anyway.
    for (const listener of listeners) {
      try {
        listener(event)
      } catch (error) {
        // A listener's failure is its own: the world and the other listeners go on.
        console.error('[petstore-mock] An event listener failed:', error)
      }
    }
  }
  const stopQuota = () => {
    clearTimeout(quotaTimer)
    quotaTimer = undefined
  }
  const emitQuota = () => {
    stopQuota()
    if (listeners.size > 0) emit({ type: 'quota', data: keyStatuses(keys, rateLimiter, clock.now()) })
  }
  const quotaSoon = () => {
    if (quotaTimer !== undefined) return
    quotaTimer = setTimeout(emitQuota, QUOTA_EVERY_MS)
    // Node: a pending quota event never keeps the process alive.
    ;(quotaTimer as { unref?: () => void }).unref?.()
  }

  return {
    subscribe(listener) {
      listeners.add(listener)
      detach ??= follow(parts, emit, quotaSoon, stopQuota)
      return () => {
        listeners.delete(listener)
        if (listeners.size === 0 && detach) {
          detach()
          detach = undefined
        }
      }
    },
    get subscribers() {
      return listeners.size
    },
    relay(event) {
      if (listeners.size > 0) emit(event)
    },
    end() {
      if (listeners.size === 0) return
      emit({ type: 'gone', data: { scenario: scenario() } })
      listeners.clear()
      detach?.()
      detach = undefined
    },
    stage(name) {
      if (listeners.size === 0) return
      emit({ type: 'stage', data: { scenario: scenario(), stage: name } })
      emitQuota()
    },
    changed(type) {
      if (listeners.size === 0) return
      emit({ type, data: { scenario: scenario() } })
      emit({ type: 'clock', data: clockView(clock) })
      emitQuota()
    },
  }
}
