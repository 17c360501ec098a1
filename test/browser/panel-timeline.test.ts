/**
 * The control panel's Timeline strip (docs/server.md, "Control panel") in Chromium, on a server started with the
 * `outage-incident` scenario: the stages as a strip, the current one marked, the verdict, and Start and Stop doing
 * what `PUT /__mock/scenario` does. The clock is frozen by the scenario, so the test plays the incident by moving it.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { type Cli, ensureBuilt, killClis, startCli } from '../http/support.js'
import { SEEN } from './live.js'
import { collectPageErrors, launchChromium } from './support.js'

let cli: Cli | undefined
let browser: Browser | undefined
const contexts: BrowserContext[] = []
let pageErrors: string[] = []

beforeAll(async () => {
  await ensureBuilt()
  ;[cli, browser] = await Promise.all([
    startCli(['--port', '0', '--seed', '1', '--log', 'silent', '--scenario', 'outage-incident']),
    launchChromium(),
  ])
})

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()))
  expect(pageErrors, 'errors in the page').toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await killClis()
})

const origin = (): string => {
  if (!cli) throw new Error('The CLI did not start.')
  return cli.url
}

/** A call from the test (Node, loopback) on the server's default session. */
async function call(path: string, init: { method?: string; body?: unknown; key?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = {}
  if (init.key) headers['authorization'] = `Bearer ${init.key}`
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  return fetch(`${origin()}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? null : JSON.stringify(init.body),
  })
}

const scenarioNow = async (): Promise<string> => ((await (await call('/__mock/scenario')).json()) as { scenario: string }).scenario

/** Opens the panel and waits until it follows the event stream and has read the session. */
async function openPanel(): Promise<Page> {
  if (!browser) throw new Error('Chromium did not start.')
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  contexts.push(context)
  const page = await context.newPage()
  pageErrors = collectPageErrors(page)
  const streaming = page.waitForResponse((response) => new URL(response.url()).pathname === '/__mock/events', SEEN)
  await page.goto(`${origin()}/__mock/ui`)
  await streaming
  await expect.poll(async () => (await page.getByRole('status', { name: 'Clock' }).textContent()) ?? '', SEEN).toMatch(/^\d{4}-/)
  return page
}

const stages = (page: Page) => page.getByRole('list', { name: 'Timeline stages' }).getByRole('listitem')
/** Each stage's text (name and request count) with `*` after the current one. */
const strip = (page: Page) => () =>
  stages(page).evaluateAll((items) =>
    items.map(
      (item) =>
        `${item.querySelector('.stage-name')?.textContent} ${item.querySelector('.stage-count')?.textContent}${item.getAttribute('aria-current') === 'step' ? ' *' : ''}`,
    ),
  )
const section = (page: Page) => page.getByRole('region', { name: 'Timeline' })
const textOf = (page: Page, selector: string) => async () =>
  (await section(page).locator(selector).textContent({ timeout: SEEN.timeout })) ?? ''

it('shows the timeline as a strip with the stage now marked, the verdict, and starts and stops it', async () => {
  const page = await openPanel()
  await expect.poll(strip(page), SEEN).toEqual(['slowing 0 req', 'outage 0 req', 'recovered 0 req'])
  const titles = await stages(page).evaluateAll((items) => items.map((item) => item.getAttribute('title')?.split('\n')[0]))
  expect(titles).toEqual(['slowing: answers slow down', 'outage: 503 with Retry-After: 30', 'recovered: answers as usual again'])
  // One scale from the scenario's start: 5-10 min, 10-20 min, then the stage that lasts for good takes a fifth.
  const geometry = await stages(page).evaluateAll((items) =>
    items.map((item) => [(item as HTMLElement).style.left, (item as HTMLElement).style.width]),
  )
  expect(geometry).toEqual([
    ['20%', '20%'],
    ['40%', '40%'],
    ['80%', '20%'],
  ])

  expect((await call('/__mock/clock', { method: 'POST', body: { advanceSeconds: 660 } })).status).toBe(200)
  expect((await call('/v1/pets?limit=1', { key: 'test-free' })).status).toBe(503)
  await expect.poll(strip(page), SEEN).toEqual(['slowing 0 req', 'outage 1 req *', 'recovered 0 req'])
  expect(
    await section(page)
      .locator('.now')
      .evaluate((marker) => (marker as HTMLElement).style.left),
  ).toBe('44%')
  await expect.poll(textOf(page, '.timeline-now'), SEEN).toBe('Scenario "outage-incident", 11 min 0 s since its start: stage "outage".')
  await expect.poll(textOf(page, '.verdict'), SEEN).toBe('Verdict: ok (the scenario expects nothing). Error rate 100 %. Banned keys: none.')

  // Start: the scenario again, its timeline (and, this scenario having a clock of its own, its clock) from the start.
  await section(page).getByRole('button', { name: 'Start' }).click()
  await expect.poll(strip(page), SEEN).toEqual(['slowing 0 req', 'outage 0 req', 'recovered 0 req'])
  expect(await scenarioNow()).toBe('outage-incident')
  expect(((await (await call('/__mock/timeline')).json()) as { elapsedMs: number }).elapsedMs).toBe(0)

  await section(page).getByRole('button', { name: 'Stop' }).click()
  await expect.poll(scenarioNow, SEEN).toBe('default')
  await section(page).waitFor({ state: 'hidden', timeout: SEEN.timeout })
  await expect.poll(() => page.locator('p.status-line').textContent(), SEEN).toBe('Timeline stopped: scenario "default" is on.')
  expect((await call('/v1/pets?limit=1', { key: 'test-free' })).status).toBe(200)
})

// Timing-sensitive: the page must read the timeline in the 10 s before the clock reaches the first stage.
it('moves the now marker along a running clock and marks the next stage once the clock enters it, with no request', {
  retry: 2,
}, async () => {
  expect((await call('/__mock/scenario', { method: 'PUT', body: { name: 'outage-incident' } })).status).toBe(200)
  // Ten seconds before the first stage, the clock running at real pace.
  expect((await call('/__mock/clock', { method: 'POST', body: { set: '2026-06-01T12:04:50Z', running: true } })).status).toBe(200)
  const page = await openPanel()
  await expect.poll(strip(page), SEEN).toEqual(['slowing 0 req', 'outage 0 req', 'recovered 0 req'])
  const marker = () =>
    section(page)
      .locator('.now')
      .evaluate((element) => Number.parseFloat((element as HTMLElement).style.left))
  const first = await marker()
  expect(first).toBeLessThan(20)
  // 1 s of the 25-minute strip is 0.067 % of its width.
  await expect.poll(marker, SEEN).toBeGreaterThan(first)
  await expect.poll(strip(page), SEEN).toEqual(['slowing 0 req *', 'outage 0 req', 'recovered 0 req'])
  await expect
    .poll(textOf(page, '.timeline-now'), SEEN)
    .toMatch(/^Scenario "outage-incident", 5 min \d+ s since its start: stage "slowing"\.$/)
  expect(await marker()).toBeGreaterThanOrEqual(20)
})
