/**
 * A scenario's timeline plays the same in Chromium as in-process: the same seed, clock moves and traffic leave the
 * same journal, wall-clock fields aside (docs/scenarios.md, "Timelines"). The HTTP leg is
 * test/scenarios/timeline.test.ts ("gives the same journal over HTTP as in-process ..."); this is the browser's.
 */
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { buildHarness, collectPageErrors, launchChromium, ROOT, type StaticServer, serveDirectory, workerScriptOf } from './support.js'

const OPTIONS = { seed: 5, scenario: 'outage-incident' }
const MINUTES = 14
const AUTH = { authorization: 'Bearer test-free' }

let browser: Browser | undefined
let server: StaticServer | undefined
let harnessPage: Page | undefined

beforeAll(async () => {
  // Its own build folder: conformance.test.ts may be building the harness into test/browser/harness/dist meanwhile.
  const outDir = join(ROOT, '.tmp', 'timeline-journal-harness')
  const [dist, launched] = await Promise.all([buildHarness(outDir), launchChromium()])
  browser = launched
  server = await serveDirectory(dist)
  harnessPage = await browser.newPage()
  const pageErrors = collectPageErrors(harnessPage)
  await harnessPage.goto(`${server.url}/`)
  await harnessPage
    .waitForFunction(() => window.petStoreHarness !== undefined, undefined, { timeout: 30_000 })
    .catch((error: unknown) => {
      throw new Error(`The harness page did not start: ${pageErrors.join('\n') || String(error)}`)
    })
  const script = await workerScriptOf(harnessPage)
  if (script !== `${server.url}/mockServiceWorker.js`)
    throw new Error(`The harness page is not controlled by msw's worker (controller: ${script}).`)
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const page = (): Page => {
  if (!harnessPage) throw new Error('The harness page is not open.')
  return harnessPage
}

/** One `GET /v1/pets?limit=1` a minute for MINUTES minutes, sent by the page and answered by msw's worker. */
async function playInPage(): Promise<Array<Record<string, unknown>>> {
  await page().evaluate((options) => window.petStoreHarness?.start(options), OPTIONS)
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
  const petStore = createPetStore(OPTIONS)
  for (let minute = 0; minute < MINUTES; minute++) {
    await (await petStore.fetch('/v1/pets?limit=1', { headers: AUTH })).arrayBuffer()
    petStore.clock.advance(60_000)
  }
  return petStore.journal.all().map((entry) => JSON.parse(JSON.stringify(entry)))
}

// What a host adds of its own (durationMs, the headers a browser sends) is left out, as in the HTTP leg.
const comparable = ({ seq, time, method, path, status, code, stage, fault, delayMs, scenario, responseBody }: Record<string, unknown>) => ({
  seq,
  time,
  method,
  path,
  status,
  code,
  stage,
  fault,
  delayMs,
  scenario,
  responseBody,
})

describe('timeline journal in Chromium', () => {
  it('gives the same journal in Chromium as in-process for the same seed, timeline and traffic (wall-clock fields aside)', async () => {
    const inPage = await playInPage()
    const inProcess = await playInProcess()
    expect(inPage).toHaveLength(MINUTES)
    expect(inPage.map(comparable)).toEqual(inProcess.map(comparable))
    // The incident really played, so a world that ignored the timeline in either host could not pass.
    const stages = inPage.map((entry) => entry.stage)
    expect(stages).toContain('slowing')
    expect(stages).toContain('outage')
    const slowing = inPage.filter((entry) => entry.stage === 'slowing')
    expect(slowing.every((entry) => typeof entry.delayMs === 'number' && entry.delayMs > 0)).toBe(true)
  })
})
