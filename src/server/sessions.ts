/**
 * Isolated sessions of the standalone server: `X-Mock-Session: <name>` selects a world of its own
 * (pets, counters, bans, clock), created on first use. The number of live sessions is bounded:
 * the least recently used is evicted (never the default session). The journals of all sessions
 * share one byte budget.
 */
import { SESSION_NAME } from '../core/refusals.js'
import { createJournalBudget, type JournalBudget } from '../journal/budget.js'
import type { PetData } from '../store/pet-data.js'
import { createWorld, type ServerWorld, type TraceAnswers } from '../world/create-world.js'
import type { PetStoreOptions } from '../world/options.js'
import { traceAnswers } from '../world/tracing.js'

export const DEFAULT_SESSION = 'default'

export interface Sessions {
  /**
   * The world of a session, created on first use; `undefined` for an invalid name. `replaying`: a state log is replayed,
   * which says itself which sessions were evicted, so none is evicted here (`trim` does, after).
   */
  get(name: string | undefined, replaying?: boolean): ServerWorld | undefined
  /** Whether the session lives now (the default one always does); an invalid name never does. */
  has(name: string): boolean
  /** Drops a session as an eviction does (a state log's `evicted` line). */
  drop(name: string): void
  /** Evicts the least recently used sessions past `max` (after a replay). */
  trim(): void
  /** The default world. */
  readonly main: ServerWorld
  /** Names of the live sessions, the default first, then least recently used first. */
  names(): string[]
  readonly size: number
  readonly max: number
  /** The bytes all sessions' journals may hold together. */
  readonly journalBudget: JournalBudget
}

/**
 * @param dataFor the storage of a new session's pets (the state log hooks in here); default index-only.
 * @param worldFor makes a session's world instead (`--redis`: a world whose state is in Redis).
 * @param onEvict told of each session evicted (`--state-file` logs it, so a restart drops the same one).
 * @example
 * const sessions = createSessions({ seed: 7 }, 1000)
 * sessions.get(request.headers['x-mock-session'])
 */
export function createSessions(
  options: PetStoreOptions,
  max: number,
  dataFor?: (name: string) => PetData,
  worldFor?: (name: string, shared: { journalBudget: JournalBudget; traceAnswers: TraceAnswers }) => ServerWorld,
  onEvict?: (name: string) => void,
): Sessions {
  const journalBudget = createJournalBudget(options.journalMaxBytes)
  // With `--tracing`, every session's requests are spans (docs/explain.md, "Traces").
  const shared = { journalBudget, traceAnswers }
  // Sessions are only reached over HTTP: worlds without msw or an @msw/data collection (decisions/009).
  const create = (name: string) => (worldFor ? worldFor(name, shared) : createWorld(options, dataFor?.(name), shared))
  const main = create(DEFAULT_SESSION)
  // A Map: session names come from clients (`__proto__` is a name like any other).
  const live = new Map<string, ServerWorld>()
  const drop = (name: string): void => {
    const evicted = live.get(name)
    if (evicted === undefined) return
    live.delete(name)
    // Its journal gives its bytes back to the shared budget.
    evicted.journal.clear()
    // Its event streams end: their clients reconnect to the session's next world.
    evicted.events.end()
  }
  const trim = (): void => {
    while (live.size > max) {
      const oldest = live.keys().next().value as string
      drop(oldest)
      onEvict?.(oldest)
    }
  }
  return {
    main,
    max,
    journalBudget,
    get size() {
      return live.size + 1
    },
    get(name, replaying = false) {
      if (name === undefined || name === '' || name === DEFAULT_SESSION) return main
      if (!SESSION_NAME.test(name)) return undefined
      const world = live.get(name) ?? create(name)
      live.delete(name)
      live.set(name, world)
      if (!replaying) trim()
      return world
    },
    has: (name) => name === DEFAULT_SESSION || live.has(name),
    drop,
    trim,
    names: () => [DEFAULT_SESSION, ...live.keys()],
  }
}
