/**
 * The conformance harness page: msw's service worker started by `startPetStoreWorker`, and a fresh
 * world per test swapped in with `worker.resetHandlers()`. The Node side calls `window.petStoreHarness`
 * through `page.evaluate`; every request is a real `fetch` in the page, answered by the worker.
 */
import { createPetStore, type PetStore, type PetStoreOptions, startPetStoreWorker } from '../../../src/browser.js'

/** A request as the Node side sends it into the page. */
export interface HarnessRequest {
  url: string
  method: string
  headers: Record<string, string>
  /**
   * The body's bytes as base64 (not text: bytes that are not UTF-8 must reach the page as they are; not an array of
   * numbers: a 1 MiB body took five seconds to cross to the page as one).
   */
  body?: string
}

/** What the page's `fetch` gave: a response, or the message of the rejection (a network error). */
export type HarnessResult =
  | { ok: true; status: number; statusText: string; headers: Array<[string, string]>; body: string }
  | { ok: false; message: string }

export interface PetStoreHarness {
  /** Starts a fresh world with these options and makes the worker answer with it. */
  start(options: PetStoreOptions): void
  /** Freezes the current world's clock. */
  setClock(iso: string): void
  /** Moves the current world's clock on by `ms`, as `petStore.clock.advance` does (plays a scenario's timeline). */
  advanceClock(ms: number): void
  /** The current world's journal, JSON round-tripped: what a page would export, comparable with another host's. */
  journal(): Array<Record<string, unknown>>
  /** Sends a request from the page to the page's own origin (same path and query), so the worker answers it. */
  send(request: HarnessRequest): Promise<HarnessResult>
}

declare global {
  interface Window {
    petStoreHarness?: PetStoreHarness
  }
}

// Unhandled requests fail loudly: every /v1 request of the suite must be answered by the worker.
const { worker, petStore: first } = await startPetStoreWorker({
  exposeOnWindow: false,
  start: { onUnhandledRequest: 'error', quiet: true },
})
let petStore: PetStore = first

window.petStoreHarness = {
  start(options) {
    petStore = createPetStore(options)
    worker.resetHandlers(...petStore.handlers)
  },
  setClock(iso) {
    petStore.clock.set(iso)
  },
  advanceClock(ms) {
    petStore.clock.advance(ms)
  },
  journal() {
    return JSON.parse(JSON.stringify(petStore.journal.all()))
  },
  async send({ url, method, headers, body }) {
    const { pathname, search } = new URL(url)
    const init: RequestInit = { method, headers, cache: 'no-store' }
    if (body !== undefined) init.body = Uint8Array.from(atob(body), (char) => char.charCodeAt(0))
    try {
      const response = await fetch(new URL(pathname + search, window.location.origin), init)
      const text = await response.text()
      return { ok: true, status: response.status, statusText: response.statusText, headers: [...response.headers], body: text }
    } catch (error) {
      return { ok: false, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }
    }
  },
}
