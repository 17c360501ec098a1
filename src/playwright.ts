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
import { type BrowserContext, test as base, type Page, type Route } from '@playwright/test'
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

export interface PetStoreFixtures {
  /** The options of each test's world (`test.use({ petStoreOptions: { … } })`). Default: seed 1, the default keys. */
  petStoreOptions: PetStoreOptions
  /** This test's world, answering the page's API requests. */
  petStore: PetStore
}

/**
 * Playwright's `test` with the `petStore` fixture. A world is made only for a test that asks for `petStore`.
 */
export const test = base.extend<PetStoreFixtures>({
  petStoreOptions: [{}, { option: true }],
  petStore: async ({ page, petStoreOptions }, use, testInfo) => {
    const petStore = createPetStore(petStoreOptions)
    const stop = await routePetStore(page.context(), petStore)
    await use(petStore)
    await stop()
    // A failing test shows what its world answered (the journal's entries, newest last).
    if (testInfo.status !== testInfo.expectedStatus) {
      await testInfo.attach('petstore-journal.json', {
        body: JSON.stringify(petStore.journal.all(), (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value), 2),
        contentType: 'application/json',
      })
    }
  },
})
