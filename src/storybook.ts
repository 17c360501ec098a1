/**
 * `petstore-mock/storybook`: a Storybook loader that gives each story a Pet Store world of its own, made from the
 * story's `parameters.petStore` (seed, scenario, clock, keys…) and answered in the page by msw's service worker, which
 * starts once, with the first story. The next story gets a new world, so nothing one story did (a used quota, a ban,
 * a created pet) reaches another (docs/storybook.md).
 *
 * @example
 * // .storybook/preview.ts
 * import { petStoreLoader } from 'petstore-mock/storybook'
 * export default { loaders: [petStoreLoader()] }
 *
 * // PetList.stories.tsx: one line per state
 * export const Banned = { parameters: { petStore: { scenario: 'key-banned' } } }
 * export const SlowDayPeak = { parameters: { petStore: { scenario: 'slow-day', advance: '15m' } } }
 */
import { type PetStoreWorker, type PetStoreWorkerOptions, startPetStoreWorker } from './browser.js'
import { durationMsOf } from './core/duration.js'
import { createPetStore, type PetStore, type PetStoreOptions } from './create-pet-store.js'
import { misuse } from './world/options.js'

/** A story's `parameters.petStore`: the options of its world, and how far to move its clock before it renders. */
export interface PetStoreStoryParameters extends PetStoreOptions {
  /**
   * Moves the world's clock on before the story renders: `'15m'` (or `900_000` ms) shows minute 15 of a scenario's
   * timeline, `'1d'` the next day's quota. The forms of a scenario timeline's `after`: `90s`, `5m`, `2h`, `1d`, `PT1H`.
   */
  advance?: string | number
}

/** What the loader gives the story (`context.loaded.petStore`): the world answering its requests. */
export interface PetStoreLoaded {
  petStore: PetStore
}

/** The part of Storybook's story context the loader reads. */
export interface PetStoreStoryContext {
  parameters?: { petStore?: PetStoreStoryParameters } & Record<string, unknown>
}

const advanceMs = (advance: string | number): number => {
  const ms = typeof advance === 'number' ? advance : durationMsOf(advance)
  if (ms === undefined || !Number.isFinite(ms) || ms < 0)
    misuse(`parameters.petStore.advance ${JSON.stringify(advance)} is not a length of time: write ms, or '90s', '20m', '2h', '1d', 'PT1H'.`)
  return ms
}

/**
 * A Storybook loader (`loaders: [petStoreLoader()]` in `.storybook/preview.ts`). `defaults` are every story's world
 * options, under its own `parameters.petStore`, and the worker's (`start`, for a worker script served elsewhere).
 * Serve msw's worker script with the stories: `npx msw init public/` and `staticDirs: ['../public']` in
 * `.storybook/main.ts`.
 */
export function petStoreLoader(
  defaults: PetStoreStoryParameters & Pick<PetStoreWorkerOptions, 'start'> = {},
): (context: PetStoreStoryContext) => Promise<PetStoreLoaded> {
  const { start, ...worldDefaults } = defaults
  // One worker for the page; each story swaps in its own world's handlers.
  let worker: Promise<PetStoreWorker> | undefined
  return async (context) => {
    const { advance, ...options } = { ...worldDefaults, ...context.parameters?.petStore }
    const petStore = createPetStore(options)
    if (advance !== undefined) petStore.clock.advance(advanceMs(advance))
    // The seeded pets load in the background: a story's render or play function that reads `petStore.pets` sees them all.
    await petStore.ready()
    // A start that failed (the worker script not served yet) is tried again by the next story, not kept.
    worker ??= startPetStoreWorker({ exposeOnWindow: false, ...(start ? { start } : {}) }).catch((error: unknown) => {
      worker = undefined
      throw error
    })
    ;(await worker).worker.resetHandlers(...petStore.handlers)
    // For the console, as with startPetStoreWorker: the story's world.
    if (typeof window !== 'undefined') (window as unknown as { petStore: PetStore }).petStore = petStore
    return { petStore }
  }
}
