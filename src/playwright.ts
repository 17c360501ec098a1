/**
 * `petstore-mock/playwright`: a `@playwright/test` fixture that gives each test a Pet Store world of its own and
 * answers the page's API requests from it, in the test's own process (Playwright's routing: no service worker, nothing
 * to serve). Tests under parallel workers never share a world; the test drives it directly (`petStore.clock`,
 * `petStore.useScenario`, `petStore.journal`, the matchers of `petstore-mock/vitest` or `/jest` on its journal), and a
 * test that fails gets its world's journal attached to the report (docs/playwright.md).
 *
 * @example
 * import { expect, test } from 'petstore-mock/playwright'
 *
 * test.use({ petStoreOptions: { seed: 1, clock: '2026-06-01T12:00:00Z' } })
 * test('shows the pets', async ({ page, petStore }) => {
 *   await page.goto('http://localhost:5173/')
 *   await expect(page.getByRole('listitem')).toHaveCount(20)
 *   expect(petStore.journal.all()).toHaveLength(1)
 * })
 */
import { type BrowserContext, test as base, type Page, type Route, type TestInfo } from '@playwright/test'
import { createHttpAdmin } from './admin/http-admin.js'
import type { MockAdmin } from './admin/operations.js'
import { stringifyJson } from './core/json.js'
import type { PetStore, PetStoreOptions } from './create-pet-store.js'
import { createPetStore } from './index.js'
import { corsHeaders, preflightHeaders } from './server/cors.js'

export { expect } from '@playwright/test'

/** What the fixture reads of a world: its `fetch`, where its API lives, and its journal for the report. */
export type RoutedPetStore = Pick<PetStore, 'fetch' | 'urlPattern' | 'basePath' | 'journal'>

/** Whether `url` is one of the world's API requests: under its base path, on its origin when the `baseUrl` names one. */
function apiUrlOf({ urlPattern, basePath }: Pick<RoutedPetStore, 'urlPattern' | 'basePath'>): (url: URL) => boolean {
  const origin = urlPattern.startsWith('*') ? undefined : new URL(urlPattern).origin
  return (url) => (origin === undefined || url.origin === origin) && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`))
}

/** Answers one routed request from the world, with CORS for a page on another origin (the server's rules, src/server/cors.ts). */
async function answer(route: Route, petStore: RoutedPetStore): Promise<void> {
  const request = route.request()
  const headers = await request.allHeaders()
  const origin = headers['origin']
  if (request.method() === 'OPTIONS' && headers['access-control-request-method'] !== undefined) {
    return route.fulfill({ status: 204, headers: preflightHeaders('*', origin, headers['access-control-request-headers']) })
  }
  let response: Response
  try {
    const body = request.postDataBuffer()
    response = await petStore.fetch(request.url(), {
      method: request.method(),
      headers,
      ...(body === null ? {} : { body: new Uint8Array(body) }),
    })
  } catch {
    // A scenario's dropped connection (`network-error`): the page sees a failed request, as from a real server.
    return route.abort('connectionreset')
  }
  await route.fulfill({
    status: response.status,
    headers: { ...Object.fromEntries(response.headers), ...corsHeaders('*', origin) },
    body: Buffer.from(await response.arrayBuffer()),
  })
}

/**
 * Routes the API requests of `page` (or of every page of a browser context) to `petStore`; resolves with the function
 * that stops it. The fixture does this for you; call it yourself for a world made your own way.
 *
 * @example
 * const stop = await routePetStore(page, createPetStore({ seed: 1 }))
 */
export async function routePetStore(target: Page | BrowserContext, petStore: RoutedPetStore): Promise<() => Promise<void>> {
  const isApi = apiUrlOf(petStore)
  const handler = (route: Route) => answer(route, petStore)
  await target.route(isApi, handler)
  return () => target.unroute(isApi, handler)
}

/** A standalone server the tests share (`petstore-mock --port 4010`, or Playwright's `webServer`). */
export interface PetStoreServerTarget {
  /** Its address, `http://127.0.0.1:4010` (with or without `/v1`). */
  readonly url: string
  /** Its `--admin-token`, when it has one. */
  readonly token?: string
}

/** This test's session on the shared server: a world of its own there, that its pages' requests reach. */
export interface PetStoreSession {
  /** The session's name: every request of the test's pages carries it as `X-Mock-Session`. */
  readonly name: string
  /** The server's admin operations, each acting on this session (`admin.advanceClock(60)`, `admin.useScenario(…)`). */
  readonly admin: MockAdmin
}

export interface PetStoreFixtures {
  /** The options of each test's world (`test.use({ petStoreOptions: { … } })`). Default: seed 1, the default keys. */
  petStoreOptions: PetStoreOptions
  /** This test's world, answering the page's API requests. */
  petStore: PetStore
  /** The shared server of `petStoreSession` (`test.use({ petStoreServer: { url } })`). */
  petStoreServer: PetStoreServerTarget | undefined
  /** This test's session on `petStoreServer`, for apps that fetch on the server side too (docs/playwright.md). */
  petStoreSession: PetStoreSession
}

/** The entries of a session's journal a failing test's report gets: its newest, as one admin read may give them. */
const JOURNAL_LIMIT = 1000

/** A failing test shows what its world answered (the journal's entries, newest last). */
async function attachJournal(testInfo: TestInfo, entries: () => Promise<unknown> | unknown): Promise<void> {
  if (testInfo.status === testInfo.expectedStatus) return
  await testInfo.attach('petstore-journal.json', { body: stringifyJson(await entries(), 2), contentType: 'application/json' })
}

/**
 * A session name of its own for each run of each test (a repeat and a retry are runs of their own), within the
 * server's rule for names (`SESSION_NAME`, src/core/refusals.ts: 1-64 of letters, digits, `.`, `_`, `:`, `-`).
 */
const sessionName = ({ testId, repeatEachIndex, retry }: TestInfo): string =>
  `pw-${testId}-${repeatEachIndex}-${retry}`.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 64)

/**
 * Playwright's `test` with the `petStore` fixture (a world in the test's process) and the `petStoreSession` fixture (a
 * session on a shared server). A world or a session is made only for a test that asks for it.
 */
export const test = base.extend<PetStoreFixtures>({
  petStoreOptions: [{}, { option: true }],
  petStore: async ({ page, petStoreOptions }, use, testInfo) => {
    const petStore = createPetStore(petStoreOptions)
    const stop = await routePetStore(page.context(), petStore)
    await use(petStore)
    await stop()
    await attachJournal(testInfo, () => petStore.journal.all())
  },
  petStoreServer: [undefined, { option: true }],
  petStoreSession: async ({ page, petStoreServer }, use, testInfo) => {
    if (petStoreServer === undefined)
      throw new Error(
        '[petstore-mock] petStoreSession needs the shared server: test.use({ petStoreServer: { url: "http://127.0.0.1:4010" } }), with the server started by webServer in playwright.config.ts.',
      )
    const name = sessionName(testInfo)
    const admin = createHttpAdmin({ url: petStoreServer.url, token: petStoreServer.token, session: name })
    await page.context().setExtraHTTPHeaders({ 'x-mock-session': name })
    await use({ name, admin })
    await attachJournal(testInfo, () => admin.journal({ limit: JOURNAL_LIMIT }))
  },
})
