import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { defineConformanceSuite } from '../conformance/suite.js'
import { comparableEntry } from '../support/journal-fields.js'
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
  if (request.body !== null) sent.body = Buffer.from(await request.arrayBuffer()).toString('base64')
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

// A scenario's timeline plays the same in Chromium as in-process: the same seed, clock moves and traffic leave the
// same journal, wall-clock fields aside (docs/scenarios.md, "Timelines"). The HTTP leg is
// test/scenarios/timeline.test.ts ("gives the same journal over HTTP as in-process ..."); this is the browser's, on the
// file's page (one harness build and one Chromium for both).
const TIMELINE = { seed: 5, scenario: 'outage-incident' }
const MINUTES = 14
const AUTH = { authorization: 'Bearer test-free' }

/** One `GET /v1/pets?limit=1` a minute for MINUTES minutes, sent by the page and answered by msw's worker. */
async function playInPage(): Promise<Array<Record<string, unknown>>> {
  await page().evaluate((options) => window.petStoreHarness?.start(options), TIMELINE)
  for (let minute = 0; minute < MINUTES; minute++) {
    const result = await page().evaluate(
      (headers) => window.petStoreHarness?.send({ url: 'https://api.petstore.test/v1/pets?limit=1', method: 'GET', headers }),
      AUTH,
    )
    if (!result?.ok) throw new Error(`The page's fetch failed at minute ${minute}: ${result?.message ?? 'no harness'}`)
    await page().evaluate((ms) => window.petStoreHarness?.advanceClock(ms), 60_000)
  }
  const journal = await page().evaluate(() => window.petStoreHarness?.journal())
  if (!journal) throw new Error('window.petStoreHarness is missing.')
  return journal
}

/** The same traffic on a world in this process. */
async function playInProcess(): Promise<Array<Record<string, unknown>>> {
  const petStore = createPetStore(TIMELINE)
  for (let minute = 0; minute < MINUTES; minute++) {
    await (await petStore.fetch('/v1/pets?limit=1', { headers: AUTH })).arrayBuffer()
    petStore.clock.advance(60_000)
  }
  return petStore.journal.all().map((entry) => JSON.parse(JSON.stringify(entry)))
}

describe('timeline journal in Chromium', () => {
  it('gives the same journal in Chromium as in-process for the same seed, timeline and traffic (wall-clock fields aside)', async () => {
    const inPage = await playInPage()
    const inProcess = await playInProcess()
    expect(inPage).toHaveLength(MINUTES)
    expect(inPage.map(comparableEntry)).toEqual(inProcess.map(comparableEntry))
    // The incident really played, so a world that ignored the timeline in either host could not pass.
    const stages = inPage.map((entry) => entry.stage)
    expect(stages).toContain('slowing')
    expect(stages).toContain('outage')
    const slowing = inPage.filter((entry) => entry.stage === 'slowing')
    expect(slowing.every((entry) => typeof entry.delayMs === 'number' && entry.delayMs > 0)).toBe(true)
  })
})
