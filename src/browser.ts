/**
 * `petstore-mock/browser`: the same handlers in the browser, answered by msw's service worker.
 * Imports nothing from Node. Run `npx msw init public/` once so the worker script is served.
 *
 * @example
 * // src/mocks.ts in a Vite/React/Vue app
 * import { startPetStoreWorker } from 'petstore-mock/browser'
 * await startPetStoreWorker({ seed: 1, scenario: 'default' })
 */
import { type SetupWorker, type StartOptions, setupWorker } from 'msw/browser'
import { createPetStore, type PetStore, type PetStoreOptions } from './create-pet-store.js'
import type { WorldActions } from './panel/world-source.js'
import { stringifySnapshot } from './snapshot.js'

export interface PetStoreWorkerOptions extends PetStoreOptions {
  /**
   * Keep the world (pets, counters, clock, scenario) across page reloads in `localStorage` under
   * this key. Default `false`: every load starts from the seed.
   */
  persist?: boolean | string
  /** Expose `window.petStore` for the console and dev panels. Default `true`. */
  exposeOnWindow?: boolean
  /**
   * Adds a floating button named "petstore-mock" that opens the control panel (requests, keys, scenario, clock,
   * state) over the page, fed by this world. Development only: the panel's code is loaded only when this is set.
   * Default `false`.
   */
  panel?: boolean
  /**
   * Passed to msw's `worker.start()`, over the defaults `{ onUnhandledRequest: 'bypass', quiet: true }`
   * (`onUnhandledFrame` in msw 3):
   * `{ serviceWorker: { url: '/app/mockServiceWorker.js' } }` keeps them.
   */
  start?: StartOptions
}

export interface PetStoreWorker {
  readonly petStore: PetStore
  readonly worker: SetupWorker
  /** Back to the seed (and forget the persisted state). */
  reset(): Promise<void>
  /** Switch the scenario (kept across reloads when persisting). */
  useScenario(name: string): Promise<void>
  /** Stops the worker (and removes the panel). */
  stop(): void
}

const SAVE_DELAY_MS = 200
/** Worlds up to this many pets are saved after every answer (a save grows with the pets); larger ones on a timer and on pagehide. */
const SAVE_AT_ONCE_MAX_PETS = 5_000

/**
 * The app's own requests (assets, other APIs) pass through silently. msw 2 reads `onUnhandledRequest`, msw 3 renamed it
 * `onUnhandledFrame`; each ignores the other's name, so both are set (decisions/008-msw-3-readiness.md).
 */
const START_DEFAULTS = { onUnhandledRequest: 'bypass', onUnhandledFrame: 'bypass', quiet: true } as StartOptions

/** The in-page control panel, loaded only when asked for: a separate chunk an app without `panel: true` never loads. */
async function addPanel(petStore: PetStore, actions: WorldActions): Promise<(() => void) | undefined> {
  if (typeof document === 'undefined') return undefined
  const { mountInPagePanel } = await import('./panel/in-page.js')
  return mountInPagePanel(petStore, actions).remove
}

/**
 * Starts msw's service worker with a Pet Store world, and (by default) puts it on `window.petStore`
 * so you can switch scenarios and move the clock from the console:
 * `petStore.useScenario('rate-limited')`, `petStore.clock.advance(60_000)`.
 */
export async function startPetStoreWorker(options: PetStoreWorkerOptions = {}): Promise<PetStoreWorker> {
  const { persist = false, exposeOnWindow = true, panel = false, start, ...storeOptions } = options
  const storageKey = typeof persist === 'string' ? persist : 'petstore-mock:state'
  const storage = persist ? globalThis.localStorage : undefined
  const petStore = createPetStore(storeOptions)

  const saved = storage?.getItem(storageKey)
  if (saved) {
    try {
      await petStore.restore(saved)
    } catch (error) {
      console.warn('[petstore-mock] Ignoring the saved state, which no longer fits:', error)
      storage?.removeItem(storageKey)
    }
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  /** Writes the world now. The snapshot is read from the indexes, complete even while the collection catches up. */
  const flush = (snapshot = petStore.snapshot()) => {
    clearTimeout(timer)
    timer = undefined
    if (!storage) return
    try {
      storage.setItem(storageKey, stringifySnapshot(snapshot))
    } catch (error) {
      // Storage full or blocked: the mock keeps working, only the reload loses the state.
      console.warn('[petstore-mock] Could not save the state to localStorage:', error)
    }
  }
  /**
   * After each answer: a small world is written at once, before the page can see the answer (msw reports it before the
   * worker hands it over), so an answer the page saw survives an immediate reload (test/browser/example.test.ts,
   * "...across an immediate reload with ?persist=1"); a large one a moment later, and always when the page goes away.
   */
  const save = () => {
    if (!storage) return
    const snapshot = petStore.snapshot()
    if (snapshot.pets.length <= SAVE_AT_ONCE_MAX_PETS) return flush(snapshot)
    timer ??= setTimeout(flush, SAVE_DELAY_MS)
  }
  const worker = setupWorker(...petStore.handlers)
  if (storage) {
    worker.events.on('response:mocked', save)
    globalThis.addEventListener?.('pagehide', () => flush())
    globalThis.document?.addEventListener('visibilitychange', () => {
      if (globalThis.document.visibilityState === 'hidden') flush()
    })
  }
  await worker.start({ ...START_DEFAULTS, ...start })

  const handle: PetStoreWorker = {
    petStore,
    worker,
    async reset() {
      clearTimeout(timer)
      timer = undefined
      storage?.removeItem(storageKey)
      await petStore.reset()
    },
    async useScenario(name) {
      await petStore.useScenario(name)
      save()
    },
    stop: () => {
      worker.stop()
      removePanel?.()
    },
  }
  const removePanel = panel ? await addPanel(petStore, { changed: save }) : undefined
  if (exposeOnWindow && typeof window !== 'undefined') {
    ;(window as unknown as { petStore: unknown }).petStore = Object.assign(Object.create(petStore) as PetStore, {
      reset: handle.reset,
      useScenario: handle.useScenario,
      worker,
    })
  }
  return handle
}

export { createPetStore, type PetStore, type PetStoreOptions } from './create-pet-store.js'
