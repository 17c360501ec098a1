/**
 * A world's clock: real time by default, and settable and movable by tests and QA. Rate-limit
 * windows, `Retry-After`, bans, `X-RateLimit-Reset` and the sunset read this clock and nothing else.
 */

/** A moment: a `Date`, an ISO 8601 string or milliseconds since the epoch. */
export type Moment = Date | string | number

export interface Clock {
  /** Milliseconds since the epoch on this clock. */
  now(): number
  /** Freezes the clock at `moment`, or with `{ running: true }` moves it there and lets it run. */
  set(moment: Moment, options?: { running?: boolean }): void
  /** Moves the clock forward (or back, with a negative value) by `ms`, frozen or running. */
  advance(ms: number): void
  /** Back to real time (a frozen clock runs again, with no offset). */
  useRealTime(): void
  /** Whether the clock is frozen (set and not running). */
  readonly frozen: boolean
  /** Virtual ms it moves in a real ms while running (`createClock`'s `speed`); a clock of your own may leave it out. */
  readonly speed?: number
  /** The clock's setting as plain data, for state snapshots. */
  snapshot(): ClockState
  /** Puts back a setting taken by `snapshot()`. */
  restore(state: ClockState): void
  /**
   * Calls `listener` after every `set`, `advance`, `useRealTime` and `restore` (the control panel's live clock).
   * Returns the function that stops it. A clock of your own may leave it out: then nobody hears of its moves.
   */
  onChange?(listener: () => void): () => void
}

/** A clock's setting: frozen at a moment, or running with an offset from real time. */
export interface ClockState {
  readonly frozenAt: number | null
  readonly offset: number
}

/** The largest time a `Date` can hold (±100,000,000 days from the epoch). */
export const MAX_TIME = 8.64e15
/**
 * The moments a world's clock takes: the epoch to the last millisecond of year 9999 (docs/spec-decisions.md row 66).
 * Every reader prints them: a journal entry's ISO 8601 time, a window's end or a ban's end a day later, `Retry-After`
 * and `X-RateLimit-Reset`. At a Date's own ends the moment a day later is no Date (the journal, the HAR and the keys
 * answered 500), and before the epoch every key's first use lies in its future (each one banned).
 */
export const EARLIEST_TIME = 0
export const LATEST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
/** The range in words, for the errors that refuse a moment outside it. */
export const CLOCK_RANGE = '1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z'

const inRange = (ms: number) => ms >= EARLIEST_TIME && ms <= LATEST_TIME

/** Turns a moment into ms since the epoch, with a clear error for a bad one or one outside the clock's range. */
export function toEpochMs(moment: Moment): number {
  const ms = moment instanceof Date ? moment.getTime() : typeof moment === 'number' ? moment : Date.parse(moment)
  if (!Number.isFinite(ms)) {
    throw new TypeError(
      `[petstore-mock] Invalid time ${JSON.stringify(String(moment))}: use a Date, milliseconds since the epoch or an ISO 8601 string such as "2026-06-01T12:00:00Z".`,
    )
  }
  if (!inRange(ms)) {
    throw new TypeError(
      `[petstore-mock] Time ${JSON.stringify(String(moment))} is outside the clock's range, ${CLOCK_RANGE}: pick a moment within it, such as "2026-06-01T12:00:00Z".`,
    )
  }
  return ms
}

/** Options of `createClock`. */
export interface ClockOptions {
  /**
   * How many virtual milliseconds pass in one real millisecond while the clock runs (default 1). With 60, one real
   * second is one virtual minute: a person watching the control panel sees an hour-long timeline in a minute
   * (docs/scenarios.md, "Timelines"). A frozen clock stays frozen whatever the speed.
   */
  speed?: number
}

/**
 * Creates a clock. `realNow` is the source of real time (injectable for tests).
 *
 * @example
 * const clock = createClock()
 * clock.set('2030-12-05T00:00:00Z') // frozen at the sunset
 * clock.advance(60_000)             // one minute later
 * clock.useRealTime()
 * const fast = createClock(Date.now, { speed: 60 }) // a virtual minute a real second
 */
export function createClock(realNow: () => number = Date.now, options: ClockOptions = {}): Clock {
  const speed = options.speed ?? 1
  if (!Number.isFinite(speed) || speed <= 0)
    throw new TypeError(`[petstore-mock] The clock's speed must be a positive number (60: a minute a second), got ${String(speed)}.`)
  // A running clock reads `paced() + offset`: real time since `base`, times the speed. At speed 1 that is real time.
  let base = realNow()
  const paced = (real = realNow()) => base + (real - base) * speed
  let frozenAt: number | undefined
  let offset = 0
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const listener of [...listeners]) listener()
  }
  return {
    // A running clock set near the end of its range stops there, and a setting restored from elsewhere is read within
    // it, so every moment it gives is one every reader can print (src/clock.test.ts).
    now: () => Math.max(EARLIEST_TIME, Math.min(LATEST_TIME, frozenAt ?? paced() + offset)),
    set(moment, options) {
      const ms = toEpochMs(moment)
      if (options?.running) {
        frozenAt = undefined
        offset = ms - paced()
      } else frozenAt = ms
      changed()
    },
    advance(ms) {
      if (!Number.isFinite(ms))
        throw new TypeError(`[petstore-mock] clock.advance() needs a finite number of milliseconds, got ${String(ms)}.`)
      const next = (frozenAt ?? paced() + offset) + ms
      if (!inRange(next))
        throw new TypeError(
          `[petstore-mock] clock.advance(${ms}) would move the clock outside its range, ${CLOCK_RANGE}: advance it by less.`,
        )
      if (frozenAt === undefined) offset += ms
      else frozenAt += ms
      changed()
    },
    useRealTime() {
      frozenAt = undefined
      offset = 0
      base = realNow()
      changed()
    },
    get frozen() {
      return frozenAt !== undefined
    },
    speed,
    // The saved offset is from real time, whatever the speed, so a state file or Redis reads the same moment
    // after a restart (the pace itself is an option of the process, not of the state).
    // One reading of real time each: two could differ by a millisecond and leave an offset of -1 at real pace.
    snapshot: () => {
      const real = realNow()
      return { frozenAt: frozenAt ?? null, offset: frozenAt === undefined ? paced(real) + offset - real : offset }
    },
    restore(state) {
      frozenAt = state.frozenAt ?? undefined
      const real = realNow()
      offset = frozenAt === undefined ? state.offset + real - paced(real) : state.offset
      changed()
    },
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
