import type { Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { defineConformanceSuite } from '../conformance/suite.js'
import type { HarnessRequest, HarnessResult } from './harness/main.js'
import { type HarnessPage, openHarnessPage } from './support.js'

const BASE_URL = 'https://api.petstore.test/v1'
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

let opened: HarnessPage | undefined

beforeAll(async () => {
  opened = await openHarnessPage()
})

afterAll(async () => {
  await opened?.browser.close()
  await opened?.server.close()
})

const page = (): Page => {
  if (!opened) throw new Error('The harness page is not open.')
  return opened.page
}

/** The page's `fetch` (answered by the service worker), as a `fetch` function in Node. */
async function fetchInPage(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init)
  const sent: HarnessRequest = { url: request.url, method: request.method, headers: Object.fromEntries(request.headers) }
  if (request.body !== null) sent.body = [...new Uint8Array(await request.arrayBuffer())]
  const result: HarnessResult = await page().evaluate((message) => {
    if (!window.petStoreHarness) throw new Error('window.petStoreHarness is missing.')
    return window.petStoreHarness.send(message)
  }, sent)
  if (!result.ok) throw new TypeError('fetch failed', { cause: new Error(`In the page: ${result.message}`) })
  return new Response(NULL_BODY_STATUSES.has(result.status) ? null : result.body, {
    status: result.status,
    statusText: result.statusText,
    headers: result.headers,
  })
}

// One page and one service worker for the file; every world is a fresh createPetStore() in the page,
// swapped in with worker.resetHandlers(), so this file's tests run in sequence.
defineConformanceSuite({
  name: 'msw setupWorker in Chromium, requests sent by the page',
  async start(options) {
    await page().evaluate((storeOptions) => {
      if (!window.petStoreHarness) throw new Error('window.petStoreHarness is missing.')
      window.petStoreHarness.start(storeOptions)
    }, options)
    return {
      fetch: fetchInPage,
      baseUrl: BASE_URL,
      async setClock(iso) {
        await page().evaluate((moment) => window.petStoreHarness?.setClock(moment), iso)
      },
      close: async () => {},
    }
  },
})
