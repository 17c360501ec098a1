import type { PetStoreWorker } from 'petstore-mock/browser'

/**
 * Starts the Pet Store mock before the app sends its first request. `?persist=1` in the address keeps
 * the data (pets, counters, clock, scenario) across reloads, in localStorage.
 */
export async function enableMocking(): Promise<PetStoreWorker> {
  // A dynamic import puts msw and the mock in a chunk of their own. In your app, call enableMocking()
  // only `if (import.meta.env.DEV)`, so a production build never contains them; this demo has no backend.
  const { startPetStoreWorker } = await import('petstore-mock/browser')
  const persist = new URLSearchParams(window.location.search).get('persist') === '1'
  return startPetStoreWorker({ seed: 1, persist })
}
