/**
 * Isolated sessions of the standalone server: `X-Mock-Session: <name>` selects a world of its own
 * (pets, counters, bans, clock), created on first use. The number of live sessions is bounded:
 * the least recently used is evicted (never the default session).
 */
import { createWorld, type World as PetStore, type PetStoreOptions } from '../world.js'

export const DEFAULT_SESSION = 'default'
const SESSION_NAME = /^[A-Za-z0-9._:-]{1,64}$/

export interface Sessions {
  /** The world of a session, created on first use; `undefined` for an invalid name. */
  get(name: string | undefined): PetStore | undefined
  /** The default world. */
  readonly main: PetStore
  /** Names of the live sessions, least recently used first. */
  names(): string[]
  /** Puts a world under a name (state restore). */
  set(name: string, store: PetStore): void
  readonly size: number
  readonly max: number
  /** Makes a world with the sessions' options (for restores). */
  create(): PetStore
}

export const isSessionName = (name: string): boolean => SESSION_NAME.test(name)

/**
 * @example
 * const sessions = createSessions({ seed: 7 }, 1000)
 * sessions.get(request.headers['x-mock-session'])
 */
export function createSessions(options: PetStoreOptions, max: number, onCreate?: (name: string, store: PetStore) => void): Sessions {
  // Sessions are only reached over HTTP: worlds without msw or an @msw/data collection (decisions/009).
  const create = () => createWorld({ ...options, collection: false })
  const main = create()
  const live = new Map<string, PetStore>()
  const touch = (name: string, store: PetStore) => {
    live.delete(name)
    live.set(name, store)
    while (live.size > max) {
      const oldest = live.keys().next().value as string
      live.delete(oldest)
    }
  }
  return {
    main,
    max,
    create,
    get size() {
      return live.size + 1
    },
    get(name) {
      if (name === undefined || name === '' || name === DEFAULT_SESSION) return main
      if (!SESSION_NAME.test(name)) return undefined
      let store = live.get(name)
      if (store) {
        touch(name, store)
        return store
      }
      store = create()
      touch(name, store)
      onCreate?.(name, store)
      return store
    },
    set(name, store) {
      if (name === DEFAULT_SESSION) throw new Error('[petstore-mock] The default session cannot be replaced; restore into it instead.')
      touch(name, store)
    },
    names: () => [DEFAULT_SESSION, ...live.keys()],
  }
}
