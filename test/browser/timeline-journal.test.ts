/**
 * A scenario's timeline plays the same in Chromium as in-process: the same seed, clock moves and traffic leave the
 * same journal, wall-clock fields aside (docs/scenarios.md, "Timelines"). The HTTP leg is
 * test/scenarios/timeline.test.ts ("gives the same journal over HTTP as in-process ..."); this is the browser's.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { comparableEntry } from '../support/journal-fields.js'
import { type HarnessPage, openHarnessPage, ROOT } from './support.js'

const OPTIONS = { seed: 5, scenario: 'outage-incident' }
const MINUTES = 14
const AUTH = { authorization: 'Bearer test-free' }

let opened: HarnessPage | undefined

beforeAll(async () => {
  // Its own build folder: conformance.test.ts may be building the harness into test/browser/harness/dist meanwhile.
  opened = await openHarnessPage(join(ROOT, '.tmp', 'timeline-journal-harness'))
})

afterAll(async () => {
  await opened?.browser.close()
  await opened?.server.close()
})

const page = (): Page => {
  if (!opened) throw new Error('The harness page is not open.')
  return opened.page
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
