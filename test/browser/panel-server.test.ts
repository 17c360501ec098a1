/**
 * The server's control panel (`GET /__mock/ui`) in Chromium, driven as a QA engineer drives it:
 * the built CLI on loopback, API requests sent from the test (Node) while the page watches, the panel's
 * controls clicked and typed into, and what they did checked on the API itself. Each test uses a session
 * of its own, so the tests share one server without sharing a world.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { SUNSET } from '../../src/spec.js'
import { type Cli, ensureBuilt, killClis, startCli } from '../http/support.js'
import { goneText, openNewestRow, realTimeSince, SEEN } from './live.js'
import { collectPageErrors, launchChromium, RESULTS_DIR, ROOT } from './support.js'

const SCREENSHOT = join(RESULTS_DIR, 'panel-server.png')
/**
 * The README's picture: written to docs/ only by `npm run screenshots` (so a test run leaves the checkout clean),
 * to test-results/ otherwise.
 */
const README_SCREENSHOT = process.env['PETSTORE_WRITE_SCREENSHOTS']
  ? join(ROOT, 'docs', 'images', 'control-panel.png')
  : join(ROOT, 'test-results', 'control-panel.png')
const FROZEN = '2026-06-01T12:00:00Z'

let cli: Cli | undefined
let browser: Browser | undefined
const contexts: BrowserContext[] = []
/** Per test: each page's errors (`pageErrors` the newest page's), and every URL the pages asked for. */
const errorsOfPages: string[][] = []
let pageErrors: string[] = []
const pageRequests: string[] = []

beforeAll(async () => {
  await ensureBuilt()
  ;[cli, browser] = await Promise.all([startCli(['--port', '0', '--seed', '1', '--log', 'silent']), launchChromium()])
})

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()))
  const errors = errorsOfPages.splice(0).flat()
  const elsewhere = pageRequests.splice(0).filter((url) => !url.startsWith(`${origin()}/`))
  expect(errors, 'errors in the page').toEqual([])
  // Nothing from another origin: no CDN, no font, no analytics (the page's CSP would block them anyway).
  expect(elsewhere, 'requests the page made outside the server').toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await killClis()
})

const origin = (): string => {
  if (!cli) throw new Error('The CLI did not start.')
  return cli.url
}

interface ApiCall {
  key?: string
  session?: string
  method?: string
  body?: unknown
}

/** An API request from the test (Node, loopback), as a client of the mock sends it. */
async function api(path: string, { key, session, method = 'GET', body }: ApiCall = {}): Promise<Response> {
  const headers: Record<string, string> = {}
  if (key) headers['authorization'] = `Bearer ${key}`
  if (session) headers['x-mock-session'] = session
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${origin()}${path}`, { method, headers, body: body === undefined ? null : JSON.stringify(body) })
  await response.arrayBuffer()
  return response
}

/** An admin call from the test, on a session. */
async function admin(path: string, session: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${origin()}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-mock-session': session, 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`)
  return response
}

/** A fresh page (its own profile) whose errors and requests the test's `afterEach` checks. */
async function newPage(viewport = { width: 1440, height: 900 }): Promise<Page> {
  if (!browser) throw new Error('Chromium did not start.')
  const context = await browser.newContext({ viewport, acceptDownloads: true })
  contexts.push(context)
  const page = await context.newPage()
  pageErrors = collectPageErrors(page)
  errorsOfPages.push(pageErrors)
  page.on('request', (request) => pageRequests.push(request.url()))
  return page
}

const panelUrl = (session?: string): string => `${origin()}/__mock/ui${session ? `?session=${encodeURIComponent(session)}` : ''}`
const isPath = (path: string) => (response: { url(): string }) => new URL(response.url()).pathname === path
const isListOfRequests = (url: URL): boolean => url.pathname === '/__mock/requests'

/**
 * Opens the panel of a session and waits until it follows the event stream and has read the session: from then on,
 * a request the test sends must reach the table live.
 */
async function openPanel(session?: string, viewport = { width: 1440, height: 900 }): Promise<Page> {
  const page = await newPage(viewport)
  // The server subscribes the stream before it sends the headers: once they arrive, no event is missed.
  const streaming = page.waitForResponse(isPath('/__mock/events'), { timeout: SEEN.timeout })
  await page.goto(panelUrl(session))
  await streaming
  await expect.poll(() => clockText(page), SEEN).toMatch(/^\d{4}-\d\d-\d\dT/)
  await expect.poll(() => requestsHeading(page).textContent(), SEEN).toMatch(/shown of/)
  return page
}

const requestsHeading = (page: Page) => page.getByRole('heading', { name: /^Requests/ })
const requestRows = (page: Page) => page.getByRole('table', { name: 'Requests' }).locator('tbody tr')

/** The Requests table's cells, row by row (Time, Method, Path, Status, Plan, Duration, Scenario). */
const requestCells = (page: Page): Promise<string[][]> =>
  requestRows(page).evaluateAll((rows) =>
    rows.map((row) => [...(row as HTMLTableRowElement).cells].map((cell) => cell.textContent?.trim() ?? '')),
  )

/** Method, path, status (with its code) and plan of each row, newest first. */
const requestSummary = async (page: Page): Promise<string[]> =>
  (await requestCells(page)).map(([, method, path, status, plan]) => `${method} ${path} ${status} ${plan}`)

/** The Keys table as `key -> [Plan, Minute left, Minute resets, Day left, Day resets, Banned until]`. */
async function keyRows(page: Page): Promise<Record<string, string[]>> {
  const rows = await page
    .getByRole('table', { name: 'Keys' })
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((cell) => cell.textContent?.trim() ?? '')))
  return Object.fromEntries(rows.map(([key = '', ...rest]) => [key, rest]))
}

const clockText = async (page: Page): Promise<string> => (await page.getByRole('status', { name: 'Clock' }).textContent())?.trim() ?? ''
const statusLine = (page: Page) => page.locator('p.status-line')

// playwright-core has no `expect` of its own: vitest's `expect.poll` retries these until they match.
const textOf = (locator: Locator) => async (): Promise<string> => (await locator.textContent({ timeout: SEEN.timeout }))?.trim() ?? ''
const inputValueOf = (locator: Locator) => (): Promise<string> => locator.inputValue({ timeout: SEEN.timeout })

/** Holds the page's event stream back until the returned function is called. */
async function holdEventStream(page: Page): Promise<() => void> {
  let release = () => {}
  const held = new Promise<void>((done) => {
    release = done
  })
  await page.route(`${origin()}/__mock/events`, async (route) => {
    await held
    await route.continue()
  })
  return release
}

async function downloadOf(page: Page, button: string): Promise<{ name: string; text: string; path: string }> {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: SEEN.timeout }),
    page.getByRole('button', { name: button }).click(),
  ])
  const path = await download.path()
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8'), path }
}

/** The focused element, looking into shadow roots, with what shows its focus. */
function focused(page: Page) {
  return page.evaluate(() => {
    let element = document.activeElement
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement
    if (!element) return undefined
    const style = getComputedStyle(element)
    return {
      tag: element.tagName.toLowerCase(),
      id: element.id,
      text: element.textContent?.trim().slice(0, 60) ?? '',
      focusVisible: element.matches(':focus-visible'),
      outlineStyle: style.outlineStyle,
      outlineWidth: style.outlineWidth,
    }
  })
}

/** Presses Tab until `match` holds for the focused element (at most `max` times); returns it. */
async function tabTo(page: Page, match: (element: NonNullable<Awaited<ReturnType<typeof focused>>>) => boolean, max = 40) {
  const seen: string[] = []
  for (let presses = 0; presses < max; presses++) {
    await page.keyboard.press('Tab')
    const element = await focused(page)
    if (element && match(element)) return element
    seen.push(element ? `${element.tag}#${element.id} ${element.text.slice(0, 20)}` : '(nothing)')
  }
  throw new Error(`Tab did not reach the element in ${max} presses; it went through: ${seen.join(' | ')}`)
}

it('shows API requests live, newest first, filters them, and opens a row with the redacted key and the response body', async () => {
  // The default session, on a frozen clock at the start of a minute: the Free key's 61st request is its first 429.
  await admin('/__mock/clock', 'default', { set: FROZEN })
  const page = await openPanel()
  await expect.poll(() => requestCells(page), SEEN).toEqual([])

  await api('/v1/pets?limit=2', { key: 'test-free' })
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets?limit=2 200 free'])

  for (let sent = 1; sent < 61; sent++) await api('/v1/pets?limit=2', { key: 'test-free' })
  await api('/v1/pets/999', { key: 'test-pro' })
  await api('/v1/pets', { key: 'test-business', method: 'POST', body: { name: 'Biscuit', categoryId: 3 } })
  await api('/v1/pets')

  await expect.poll(() => requestSummary(page).then((rows) => rows.length), SEEN).toBe(64)
  const rows = await requestSummary(page)
  expect(rows.slice(0, 5)).toEqual([
    'GET /v1/pets 401 unauthorized no key',
    'POST /v1/pets 201 business',
    'GET /v1/pets/999 404 pet_not_found pro',
    'GET /v1/pets?limit=2 429 rate_limited free',
    'GET /v1/pets?limit=2 200 free',
  ])
  expect(rows.slice(4)).toEqual(Array(60).fill('GET /v1/pets?limit=2 200 free'))
  const times = (await requestCells(page)).map(([time]) => time)
  expect(times.every((time) => time === '12:00:00.000')).toBe(true)
  await expect.poll(textOf(requestsHeading(page)), SEEN).toBe('Requests 64 shown of 64')

  const status = page.getByLabel('Status filter')
  const path = page.getByLabel('Path filter')
  await status.fill('429')
  expect(await requestSummary(page)).toEqual(['GET /v1/pets?limit=2 429 rate_limited free'])
  await status.fill('4xx')
  expect(await requestSummary(page)).toEqual([
    'GET /v1/pets 401 unauthorized no key',
    'GET /v1/pets/999 404 pet_not_found pro',
    'GET /v1/pets?limit=2 429 rate_limited free',
  ])
  await path.fill('/v1/pets/')
  expect(await requestSummary(page)).toEqual(['GET /v1/pets/999 404 pet_not_found pro'])
  await status.fill('2xx')
  expect(await requestSummary(page)).toEqual([])
  await status.fill('')
  await path.fill('/v1/pets/999')
  expect(await requestSummary(page)).toEqual(['GET /v1/pets/999 404 pet_not_found pro'])
  await path.fill('')
  await status.fill('429')
  // A new request that does not match the filter stays out; one that does comes in on top.
  await api('/v1/pets?limit=3', { key: 'test-pro' })
  await api('/v1/pets?limit=4', { key: 'test-free' })
  await expect
    .poll(() => requestSummary(page), SEEN)
    .toEqual(['GET /v1/pets?limit=4 429 rate_limited free', 'GET /v1/pets?limit=2 429 rate_limited free'])
  await expect.poll(textOf(requestsHeading(page)), SEEN).toBe('Requests 2 shown of 66')

  await requestRows(page).nth(1).click()
  const details = page.getByRole('region', { name: 'Request details' })
  await details.waitFor({ state: 'visible', timeout: SEEN.timeout })
  await expect.poll(textOf(details), SEEN).toContain('GET /v1/pets?limit=2 → 429')
  const requestHeaders = details.getByRole('table', { name: 'Request headers' })
  await expect.poll(textOf(requestHeaders.getByRole('row', { name: /^authorization/ })), SEEN).toMatch(/authorization\s*Bearer …free$/)
  expect(await textOf(details)()).not.toContain('test-free')
  await expect.poll(textOf(details.getByRole('table', { name: 'Response headers' })), SEEN).toContain('retry-after')
  await expect.poll(textOf(details), SEEN).toContain('"code": "rate_limited"')
  await expect.poll(textOf(details), SEEN).toContain('Rate limit exceeded: 60 requests per minute for the free plan.')
  // Why (docs/explain.md): the Free plan's 60 a minute used up in the window of 12:00 (spec, "Limits").
  await expect
    .poll(textOf(details), SEEN)
    .toContain(
      'Why: 429 rate.minute-window: key …free on plan free used 60 of 60 in the minute window that resets at 2026-06-01T12:01:00.000Z',
    )

  await status.fill('')
  // The Reason column, and its filter by a rule or a family of rules.
  const reasonFilter = page.getByLabel('Reason filter')
  await reasonFilter.fill('rate.')
  expect((await requestCells(page)).map((cells) => `${cells[3]} ${cells.at(-1)}`)).toEqual([
    '429 rate_limited rate.minute-window',
    '429 rate_limited rate.minute-window',
  ])
  await reasonFilter.fill('auth.missing')
  expect(await requestSummary(page)).toEqual(['GET /v1/pets 401 unauthorized no key'])
  await reasonFilter.fill('')
  await mkdir(RESULTS_DIR, { recursive: true })
  await page.screenshot({ path: SCREENSHOT, fullPage: true })
  console.log(`Screenshot of the server's control panel: ${SCREENSHOT}`)
})

it('wraps a long path between its segments in a narrow window, never inside a name or a value', async () => {
  const session = 'narrow-paths'
  const page = await openPanel(session, { width: 560, height: 700 })
  await api('/v1/pets?limit=5&status=available&categoryId=2', { key: 'test-pro', session })
  const cell = page.getByRole('table', { name: 'Requests' }).locator('tbody tr td.path').first()
  await expect.poll(() => cell.textContent(), SEEN).toBe('/v1/pets?limit=5&status=available&categoryId=2')
  // Each text piece of the cell (a segment between `/`, `?` and `&`) lies on one line; the cell as a whole wraps.
  const lines = await cell.evaluate((td) => {
    const linesOf = (node: Node) => {
      const range = document.createRange()
      range.selectNodeContents(node)
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size
    }
    const texts = [...td.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE)
    return { cell: linesOf(td), pieces: texts.map(linesOf) }
  })
  expect(lines.cell).toBeGreaterThan(1)
  expect(lines.pieces.every((count) => count === 1)).toBe(true)
})

it('switches the scenario from a select of every scenario, the chaos ones marked, the API following at once', async () => {
  const session = 'qa-scenario'
  const page = await openPanel(session)
  const select = page.getByRole('combobox', { name: 'Scenario' })
  const options = await select.locator('option').allTextContents()
  const names = (await readdirScenarios()).sort()
  expect(options.map((option) => option.split(' — ')[0]).sort()).toEqual(names)
  expect(options.filter((option) => option.endsWith('(chaos)')).map((option) => option.split(' ')[0])).toEqual(['flaky', 'outage'])
  expect(options).toContain('rate-limited — Every key starts with its minute used up: the next request is 429 until the minute ends.')
  await expect.poll(inputValueOf(select), SEEN).toBe('default')
  expect((await api('/v1/pets', { key: 'test-free', session })).status).toBe(200)

  await select.selectOption('rate-limited')
  await expect.poll(textOf(statusLine(page)), SEEN).toContain('Scenario "rate-limited" is on')
  const limited = await fetch(`${origin()}/v1/pets`, { headers: { authorization: 'Bearer test-free', 'x-mock-session': session } })
  expect(limited.status).toBe(429)
  expect(((await limited.json()) as { code: string }).code).toBe('rate_limited')
  await expect.poll(inputValueOf(select), SEEN).toBe('rate-limited')
  // The scenario's frozen clock shows, and the Free key has nothing left this minute.
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-01T12:00:30.000Z')
  await expect.poll(async () => (await keyRows(page))['test-free']?.[1], SEEN).toBe('0 / 60')
  await expect
    .poll(() => requestCells(page), SEEN)
    .toEqual([expect.arrayContaining(['GET', '/v1/pets', '429 rate_limited', 'free', 'rate-limited'])])

  await select.selectOption('outage')
  await expect.poll(textOf(statusLine(page)), SEEN).toContain('Scenario "outage" is on')
  await page.getByText('Chaos: injects faults.').waitFor({ state: 'visible', timeout: SEEN.timeout })
  expect((await api('/v1/pets', { key: 'test-free', session })).status).toBe(503)
  // Only this session is down.
  expect((await api('/v1/pets', { key: 'test-enterprise', session: 'qa-elsewhere' })).status).toBe(200)
  await expect.poll(async () => (await requestCells(page))[0]?.slice(3, 5), SEEN).toEqual(['503 service_unavailable', 'no key'])

  await select.selectOption('default')
  await expect.poll(textOf(statusLine(page)), SEEN).toContain('Scenario "default" is on')
  await page.getByText('Chaos: injects faults.').waitFor({ state: 'hidden', timeout: SEEN.timeout })
  expect((await api('/v1/pets', { key: 'test-free', session })).status).toBe(200)
})

/** The scenario files the server reads (its catalogue). */
async function readdirScenarios(): Promise<string[]> {
  const files = await readdir(join(ROOT, 'scenarios'))
  return files.filter((file) => file.endsWith('.json') && !file.includes('schema')).map((file) => file.slice(0, -'.json'.length))
}

it('moves the clock with its buttons, sets the sunset (getPet then answers 410) and goes back to real time', async () => {
  const session = 'qa-clock'
  const page = await openPanel(session)
  const moment = page.getByLabel('Moment (ISO 8601)')

  await moment.fill(FROZEN)
  await page.getByRole('button', { name: 'Set clock' }).click()
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-01T12:00:00.000Z')
  await page.getByText('(frozen)', { exact: true }).waitFor({ state: 'visible', timeout: SEEN.timeout })

  await page.getByRole('button', { name: 'Advance 1 hour' }).click()
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-01T13:00:00.000Z')
  expect(Date.parse(await clockText(page)) - Date.parse(FROZEN)).toBe(3_600_000)
  expect(((await (await admin('/__mock/clock', session)).json()) as { now: string }).now).toBe('2026-06-01T13:00:00.000Z')
  await page.getByRole('button', { name: 'Advance 1 minute' }).click()
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-01T13:01:00.000Z')
  await page.getByRole('button', { name: 'Advance 1 day' }).click()
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-02T13:01:00.000Z')

  // A second before the sunset getPet still answers, deprecated; at the sunset it is gone (spec decision 32).
  await moment.fill('2030-12-04T23:59:59Z')
  await moment.press('Enter')
  await expect.poll(() => clockText(page), SEEN).toBe('2030-12-04T23:59:59.000Z')
  const before = await api('/v1/pets/1', { key: 'test-free', session })
  expect(before.status).toBe(200)
  expect(before.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')

  await page.getByRole('button', { name: 'Sunset' }).click()
  await expect.poll(inputValueOf(moment), SEEN).toBe(SUNSET)
  await expect.poll(() => clockText(page), SEEN).toBe('2030-12-05T00:00:00.000Z')
  const gone = await fetch(`${origin()}/v1/pets/1`, { headers: { authorization: 'Bearer test-free', 'x-mock-session': session } })
  expect(gone.status).toBe(410)
  expect(gone.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
  expect(((await gone.json()) as { code: string; message: string }).code).toBe('gone')
  await expect.poll(async () => (await requestCells(page))[0]?.slice(1, 4), SEEN).toEqual(['GET', '/v1/pets/1', '410 gone'])

  const clicked = Date.now()
  await page.getByRole('button', { name: 'Real time' }).click()
  await page.getByText('(real time)', { exact: true }).waitFor({ state: 'visible', timeout: SEEN.timeout })
  await expect.poll(() => realTimeSince(() => clockText(page), clicked), SEEN).toBe('real time')
  expect((await api('/v1/pets/1', { key: 'test-free', session })).status).toBe(200)
  // A running clock's display moves on by itself.
  const shown = await clockText(page)
  await expect.poll(() => clockText(page), SEEN).not.toBe(shown)
})

// The Sunset button filled in the moment only: the clock stayed where it was until "Set clock" was pressed too.
it("moves the session's clock to the spec's sunset with one click, showing it without waiting for the event stream", async () => {
  const session = 'qa-sunset'
  const page = await newPage()
  // The stream is held back for the whole test: the time shown can only come from the panel reading the clock itself.
  const release = await holdEventStream(page)
  try {
    await page.goto(panelUrl(session))
    await page.getByText('(real time)', { exact: true }).waitFor({ state: 'visible', timeout: SEEN.timeout })
    await page.getByRole('button', { name: 'Sunset' }).click()

    const serverClock = async () => (await (await admin('/__mock/clock', session)).json()) as { now: string; frozen: boolean }
    await expect.poll(serverClock, SEEN).toMatchObject({ now: new Date(SUNSET).toISOString(), frozen: true })
    await expect.poll(() => clockText(page), SEEN).toBe(new Date(SUNSET).toISOString())
    await page.getByText('(frozen)', { exact: true }).waitFor({ state: 'visible', timeout: SEEN.timeout })
    expect(await page.getByLabel('Moment (ISO 8601)').inputValue()).toBe(SUNSET)
    await expect.poll(textOf(statusLine(page)), SEEN).toBe(`Clock set to the sunset, ${SUNSET} (frozen): getPet now answers 410.`)
    expect((await api('/v1/pets/1', { key: 'test-free', session })).status).toBe(410)
  } finally {
    release()
  }
})

// The details pane kept showing an entry of a journal the session had just cleared.
it('clears the open request details on a reset, a scenario switch and DELETE /__mock/requests, and keeps them on an import', async () => {
  const session = 'qa-details'
  const page = await openPanel(session)
  const details = page.getByRole('region', { name: 'Request details' })
  const openNewest = (path: string) => openNewestRow(page, path, () => api(path, { key: 'test-pro', session }))

  const first = await openNewest('/v1/pets?limit=1')
  await page.getByRole('button', { name: 'Reset' }).click()
  await expect.poll(textOf(details), SEEN).toBe(goneText(first, 'the session was reset'))
  await expect.poll(() => requestCells(page), SEEN).toEqual([])
  // A request after the reset shows in the table, not in the pane.
  await api('/v1/pets?limit=2', { key: 'test-pro', session })
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets?limit=2 200 pro'])
  expect(await textOf(details)()).toBe(goneText(first, 'the session was reset'))
  expect(await requestRows(page).first().getAttribute('aria-selected')).toBe('false')

  await requestRows(page).first().click()
  await expect.poll(textOf(details), SEEN).toContain(' GET /v1/pets?limit=2 → 200')
  const second = (await textOf(details)()).split(' ')[0] ?? ''
  await page.getByRole('combobox', { name: 'Scenario' }).selectOption('empty-store')
  await expect.poll(textOf(details), SEEN).toBe(goneText(second, 'the scenario "empty-store" started'))
  await expect.poll(() => requestCells(page), SEEN).toEqual([])

  // An import replaces the state, not the journal (a state holds none): the entry stays while the journal has it.
  const third = await openNewest('/v1/pets?limit=3')
  const entryPath = `/__mock/requests/${third.slice(1)}`
  const state = await (await admin('/__mock/state', session)).text()
  const importState = async () => {
    const reread = page.waitForResponse(isPath(entryPath), { timeout: SEEN.timeout })
    await page.getByLabel('Import state').setInputFiles({ name: 'state.json', mimeType: 'application/json', buffer: Buffer.from(state) })
    await expect.poll(textOf(statusLine(page)), SEEN).toBe('State imported from state.json.')
    await reread
  }
  await importState()
  expect(await textOf(details)()).toContain(`${third} GET /v1/pets?limit=3 → 200`)
  expect(await requestSummary(page)).toEqual(['GET /v1/pets?limit=3 200 pro'])

  const cleared = await fetch(`${origin()}/__mock/requests`, { method: 'DELETE', headers: { 'x-mock-session': session } })
  expect(cleared.status).toBe(204)
  await expect.poll(textOf(details), SEEN).toBe(goneText(third, 'the journal was cleared'))
  await expect.poll(() => requestCells(page), SEEN).toEqual([])
})

it('says what to do while a table is empty: the curl command of a first request, the filters to clear, the keys to give', async () => {
  const session = 'qa-empty'
  const page = await openPanel(session)
  const requestsHint = page.locator('section.requests p.empty')
  const keysHint = page.locator('section.keys p.empty')
  const command = `curl -H 'Authorization: Bearer test-free' -H 'X-Mock-Session: ${session}' ${origin()}/v1/pets`
  await expect.poll(textOf(requestsHint), SEEN).toBe(`No requests yet: send one, e.g. ${command}`)
  expect(await keysHint.isVisible()).toBe(false)

  // The command as shown, sent as curl would send it.
  const shown = await requestsHint.locator('code').textContent()
  const headers = Object.fromEntries([...(shown ?? '').matchAll(/-H '([^:]+): ([^']*)'/g)].map(([, name, value]) => [name, value]))
  const sent = await fetch((shown ?? '').split(' ').at(-1) ?? '', { headers })
  expect(sent.status).toBe(200)
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets 200 free'])
  await requestsHint.waitFor({ state: 'hidden', timeout: SEEN.timeout })

  await page.getByLabel('Status filter').fill('5xx')
  await expect.poll(textOf(requestsHint), SEEN).toBe('No request matches the filters (1 hidden): clear the Status, Path or Reason filter.')
  await page.getByLabel('Status filter').fill('')
  await requestsHint.waitFor({ state: 'hidden', timeout: SEEN.timeout })

  // The `unauthorized` scenario has no keys: the Keys table says so, and the command comes without one.
  await page.getByRole('combobox', { name: 'Scenario' }).selectOption('unauthorized')
  await keysHint.waitFor({ state: 'visible', timeout: SEEN.timeout })
  expect(await textOf(keysHint)()).toMatch(/^No API keys: every request answers 401\. Switch scenario/)
  expect(await keyRows(page)).toEqual({})
  await expect
    .poll(textOf(requestsHint), SEEN)
    .toBe(`No requests yet: send one, e.g. curl -H 'X-Mock-Session: ${session}' ${origin()}/v1/pets`)
})

it('names where the API lives in the first-request hint: a server with baseUrl /api/v1 serves it there', async () => {
  const folder = join(RESULTS_DIR, 'base-path')
  await mkdir(folder, { recursive: true })
  const config = join(folder, 'petstore-mock.config.json')
  await writeFile(config, JSON.stringify({ baseUrl: '/api/v1' }))
  const other = await startCli(['--port', '0', '--config', config, '--log', 'silent'])
  const page = await newPage()
  await page.goto(`${other.url}/__mock/ui`)
  const command = `curl -H 'Authorization: Bearer test-free' ${other.url}/api/v1/pets`
  await expect.poll(textOf(page.locator('section.requests p.empty')), SEEN).toBe(`No requests yet: send one, e.g. ${command}`)
  expect((await fetch(`${other.url}/api/v1/pets`, { headers: { authorization: 'Bearer test-free' } })).status).toBe(200)
  // The page asked only its own server: the test's afterEach looks for requests outside the first one.
  const asked = pageRequests.splice(0)
  expect(asked.filter((url) => !url.startsWith(`${other.url}/`))).toEqual([])
})

it("shows the Free key's minute quota going down and its ban after five early retries", async () => {
  const session = 'qa-keys'
  await admin('/__mock/clock', session, { set: FROZEN })
  const page = await openPanel(session)
  expect(await keyRows(page)).toEqual({
    'test-free': ['free', '60 / 60', '12:01:00', '1000 / 1000', '2026-06-02 00:00:00', 'not banned'],
    'test-pro': ['pro', '300 / 300', '12:01:00', '10000 / 10000', '2026-06-02 00:00:00', 'not banned'],
    'test-business': ['business', '1000 / 1000', '12:01:00', '100000 / 100000', '2026-06-02 00:00:00', 'not banned'],
    'test-enterprise': ['enterprise', '5000 / 5000', '12:01:00', '1000000 / 1000000', '2026-06-02 00:00:00', 'not banned'],
  })

  for (let sent = 0; sent < 10; sent++) await api('/v1/pets', { key: 'test-free', session })
  await expect.poll(async () => (await keyRows(page))['test-free']?.slice(1, 4), SEEN).toEqual(['50 / 60', '12:01:00', '990 / 1000'])
  for (let sent = 10; sent < 60; sent++) await api('/v1/pets', { key: 'test-free', session })
  await expect.poll(async () => (await keyRows(page))['test-free']?.[1], SEEN).toBe('0 / 60')

  // The 61st request is the first 429; the fifth request after it, all before its Retry-After, bans the key (decisions 30, 31).
  const codes: string[] = []
  for (let sent = 0; sent < 6; sent++) {
    const response = await fetch(`${origin()}/v1/pets`, { headers: { authorization: 'Bearer test-free', 'x-mock-session': session } })
    codes.push(`${response.status} ${((await response.json()) as { code: string }).code}`)
  }
  expect(codes).toEqual([...Array(5).fill('429 rate_limited'), '429 key_temporarily_banned'])
  await expect.poll(async () => (await keyRows(page))['test-free']?.[5], SEEN).toBe('2026-06-01 12:15:00')
  await page
    .getByRole('table', { name: 'Keys' })
    .getByRole('row', { name: /^test-free/ })
    .locator('td.banned')
    .waitFor({ state: 'visible', timeout: SEEN.timeout })
  expect((await keyRows(page))['test-pro']?.[5]).toBe('not banned')
})

it('keeps sessions apart: a session page shows only its own requests, and the picker lists the sessions', async () => {
  await api('/v1/pets?limit=7', { key: 'test-pro', session: 'qa-b' })
  const page = await openPanel('qa-a')
  await api('/v1/pets?limit=1', { key: 'test-free', session: 'qa-a' })
  await api('/v1/pets?limit=8', { key: 'test-pro', session: 'qa-b' })
  await api('/v1/pets?limit=9', { key: 'test-pro' })
  await api('/v1/pets?limit=2', { key: 'test-free', session: 'qa-a' })

  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets?limit=2 200 free', 'GET /v1/pets?limit=1 200 free'])
  const picker = page.getByRole('combobox', { name: 'Session' })
  await expect.poll(inputValueOf(picker), SEEN).toBe('qa-a')
  const sessions = await picker.locator('option').allTextContents()
  expect(sessions).toEqual(expect.arrayContaining(['default', 'qa-a', 'qa-b']))

  // Picking another session reloads the page on it.
  await Promise.all([page.waitForURL(/\?session=qa-b$/), picker.selectOption('qa-b')])
  await expect.poll(inputValueOf(page.getByRole('combobox', { name: 'Session' })), SEEN).toBe('qa-b')
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets?limit=8 200 pro', 'GET /v1/pets?limit=7 200 pro'])
})

// The page read the journal and subscribed to the event stream independently: a request recorded between the two
// never showed, until a reload. Holding the stream back makes that window as long as the test needs.
it('shows the requests sent while the page was still connecting to the event stream', async () => {
  const session = 'qa-late-stream'
  const page = await newPage()
  const release = await holdEventStream(page)
  await page.goto(panelUrl(session))
  await expect.poll(textOf(requestsHeading(page)), SEEN).toBe('Requests 0 shown of 0')
  await api('/v1/pets?limit=1', { key: 'test-free', session })
  await api('/v1/pets?limit=2', { key: 'test-pro', session })

  const streaming = page.waitForResponse(isPath('/__mock/events'))
  release()
  await streaming
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets?limit=2 200 pro', 'GET /v1/pets?limit=1 200 free'])
  await api('/v1/pets?limit=3', { key: 'test-free', session })
  await expect.poll(() => requestSummary(page), SEEN).toHaveLength(3)
})

// The other order: rows the stream brought while the journal's list was on its way were replaced by that older list.
it('keeps the rows that came live while the first list of requests was on its way', async () => {
  const session = 'qa-late-list'
  const page = await newPage()
  let release = () => {}
  const held = new Promise<void>((done) => {
    release = done
  })
  await page.route(isListOfRequests, async (route) => {
    // Read now, delivered later: the list is older than what the stream shows meanwhile.
    const response = await route.fetch()
    await held
    await route.fulfill({ response })
  })
  const streaming = page.waitForResponse(isPath('/__mock/events'))
  await page.goto(panelUrl(session))
  await streaming
  await api('/v1/pets?limit=1', { key: 'test-free', session })
  await api('/v1/pets?limit=2', { key: 'test-pro', session })
  await expect.poll(() => requestSummary(page), SEEN).toHaveLength(2)

  const listed = page.waitForResponse(isPath('/__mock/requests'))
  release()
  await listed
  await page.waitForTimeout(300)
  expect(await requestSummary(page)).toEqual(['GET /v1/pets?limit=2 200 pro', 'GET /v1/pets?limit=1 200 free'])
})

it("shows a request's headers and bodies as text, never as markup", async () => {
  const session = 'qa-markup'
  const page = await openPanel(session)
  const created = await fetch(`${origin()}/v1/pets`, {
    method: 'POST',
    headers: {
      authorization: 'Bearer test-business',
      'x-mock-session': session,
      'content-type': 'application/json',
      'x-note': '<b id="injected">bold</b>',
    },
    body: JSON.stringify({ name: '<img src=x onerror=alert(1)>', categoryId: 1 }),
  })
  expect(created.status).toBe(201)
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['POST /v1/pets 201 business'])
  await requestRows(page).first().click()
  const details = page.getByRole('region', { name: 'Request details' })
  await expect.poll(textOf(details), SEEN).toContain('<b id="injected">bold</b>')
  expect(await details.locator('pre').allTextContents()).toEqual([
    expect.stringContaining('"name": "<img src=x onerror=alert(1)>"'),
    expect.stringContaining('"name": "<img src=x onerror=alert(1)>"'),
  ])
  const injected = await page.evaluate(() => {
    const root = document.getElementById('petstore-mock-panel')?.shadowRoot
    return { img: root?.querySelectorAll('img').length, b: root?.querySelectorAll('#injected').length }
  })
  expect(injected).toEqual({ img: 0, b: 0 })
})

it("takes a session's state out and back in from its buttons: the journal as HAR 1.2, the state exported, reset, imported again", async () => {
  const session = 'qa-state'
  const page = await openPanel(session)
  expect((await api('/v1/pets', { key: 'test-business', session, method: 'POST', body: { name: 'Biscuit', categoryId: 3 } })).status).toBe(
    201,
  )
  await api('/v1/pets?limit=100', { key: 'test-business', session })
  await api('/v1/pets/51', { key: 'test-pro', session })
  await expect.poll(() => requestSummary(page), SEEN).toHaveLength(3)

  const har = await downloadOf(page, 'Export HAR')
  expect(har.name).toMatch(/^petstore-mock-qa-state-.*\.har$/)
  const { log } = JSON.parse(har.text) as {
    log: {
      version: string
      creator: { name: string; version: string }
      entries: Array<{
        startedDateTime: string
        time: number
        request: { method: string; url: string; headers: unknown[] }
        response: { status: number }
      }>
    }
  }
  expect(log.version).toBe('1.2')
  expect(log.creator.name).toBe('petstore-mock')
  expect(log.entries.map((entry) => `${entry.request.method} ${entry.request.url} ${entry.response.status}`)).toEqual([
    `POST ${origin()}/v1/pets 201`,
    `GET ${origin()}/v1/pets?limit=100 200`,
    `GET ${origin()}/v1/pets/51 200`,
  ])
  for (const entry of log.entries) {
    expect(Number.isNaN(Date.parse(entry.startedDateTime))).toBe(false)
    expect(entry.time).toBeGreaterThanOrEqual(0)
  }
  expect(har.text).not.toContain('test-business')

  const state = await downloadOf(page, 'Export state')
  expect(state.name).toMatch(/^petstore-mock-qa-state-.*\.json$/)
  expect((JSON.parse(state.text) as { pets: Array<{ name: string }> }).pets).toHaveLength(51)
  await expect.poll(textOf(statusLine(page)), SEEN).toBe('State exported.')

  await page.getByRole('button', { name: 'Reset' }).click()
  await expect.poll(textOf(statusLine(page)), SEEN).toContain('Session reset')
  await expect.poll(() => requestCells(page), SEEN).toEqual([])
  await expect.poll(textOf(requestsHeading(page)), SEEN).toBe('Requests 0 shown of 0')
  const afterReset = await fetch(`${origin()}/v1/pets?limit=100`, {
    headers: { authorization: 'Bearer test-pro', 'x-mock-session': session },
  })
  expect((await afterReset.json()) as unknown[]).toHaveLength(50)

  await page.getByLabel('Import state').setInputFiles(state.path)
  await expect.poll(textOf(statusLine(page)), SEEN).toContain('State imported from')
  const restored = await fetch(`${origin()}/v1/pets?limit=100`, {
    headers: { authorization: 'Bearer test-pro', 'x-mock-session': session },
  })
  const pets = (await restored.json()) as Array<{ id: number; name: string }>
  expect(pets).toHaveLength(51)
  expect(pets.at(-1)).toMatchObject({ id: 51, name: 'Biscuit' })

  // A file that is not a state is refused with a message, and nothing changes.
  await page
    .getByLabel('Import state')
    .setInputFiles({ name: 'not-a-state.json', mimeType: 'application/json', buffer: Buffer.from('{"pets": 3}') })
  await expect.poll(textOf(statusLine(page)), SEEN).toContain('Could not import the state')
  // Chromium logs the refused import (400) as a failed resource: expected here, and only here.
  const refused = `Failed to load resource: the server responded with a status of 400 (Bad Request) (${origin()}/__mock/state)`
  await expect.poll(() => pageErrors, SEEN).toContain(`console.error: ${refused}`)
  pageErrors.splice(pageErrors.indexOf(`console.error: ${refused}`), 1)
  await expect.poll(() => statusLine(page).getAttribute('class'), SEEN).toMatch(/error/)
  const unchanged = await fetch(`${origin()}/v1/pets?limit=100`, {
    headers: { authorization: 'Bearer test-pro', 'x-mock-session': session },
  })
  expect((await unchanged.json()) as unknown[]).toHaveLength(51)
})

it('works from the keyboard: Tab reaches rows, the Scenario select and the clock buttons, each with a visible focus outline', async () => {
  const session = 'qa-keyboard'
  await admin('/__mock/clock', session, { set: FROZEN })
  await api('/v1/pets?limit=1', { key: 'test-free', session })
  await api('/v1/pets/999', { key: 'test-pro', session })
  const page = await openPanel(session)
  await expect.poll(() => requestSummary(page), SEEN).toHaveLength(2)

  const picker = await tabTo(page, (element) => element.id === 'session-select')
  expect(picker).toMatchObject({ focusVisible: true })
  expect(picker.outlineStyle).not.toBe('none')

  const row = await tabTo(page, (element) => element.tag === 'tr')
  expect(row.text).toContain('/v1/pets/999')
  expect(row.focusVisible).toBe(true)
  expect(row.outlineStyle).not.toBe('none')
  await page.keyboard.press('Enter')
  const details = page.getByRole('region', { name: 'Request details' })
  await details.waitFor({ state: 'visible', timeout: SEEN.timeout })
  await expect.poll(textOf(details), SEEN).toContain('GET /v1/pets/999 → 404')

  const scenario = await tabTo(page, (element) => element.id === 'scenario-select')
  expect(scenario.focusVisible).toBe(true)
  expect(scenario.outlineStyle).not.toBe('none')

  const advance = await tabTo(page, (element) => element.tag === 'button' && element.text === 'Advance 1 hour')
  expect(advance.focusVisible).toBe(true)
  expect(advance.outlineStyle).not.toBe('none')
  expect(Number.parseFloat(advance.outlineWidth)).toBeGreaterThanOrEqual(2)
  await page.keyboard.press('Enter')
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-01T13:00:00.000Z')

  const reset = await tabTo(page, (element) => element.tag === 'button' && element.text === 'Reset')
  expect(reset.outlineStyle).not.toBe('none')
})

/** A small deterministic generator, so the README's screenshot is the same each run. */
function generator(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
}

it('writes the README screenshot: a few hundred requests of several keys, a 429, a 404, a POST, one row open', async () => {
  const session = 'checkout-flow'
  await admin('/__mock/clock', session, { set: '2026-06-01T09:41:00Z' })
  const page = await openPanel(session, { width: 1440, height: 900 })
  const random = generator(7)
  const paths = ['/v1/pets', '/v1/pets?limit=20', '/v1/pets?status=available&limit=50', '/v1/pets?limit=100', '/v1/pets?status=sold']
  const keys = ['test-pro', 'test-business', 'test-enterprise', 'test-free']
  // 280 requests over 50 s of the session's clock, the Free key among them a little more than its 60 a minute.
  let free = 0
  for (let sent = 0; sent < 280; sent++) {
    await admin('/__mock/clock', session, { advanceSeconds: Math.round(random() * 360) / 1000 })
    const key = free < 62 && (random() < 0.25 || 280 - sent <= 62 - free) ? 'test-free' : (keys[Math.floor(random() * 3)] ?? 'test-pro')
    if (key === 'test-free') free++
    const r = random()
    if (r < 0.04)
      await api('/v1/pets', { key, session, method: 'POST', body: { name: `Pet ${sent}`, categoryId: 1 + Math.floor(random() * 5) } })
    else if (r < 0.1) await api(`/v1/pets/${1 + Math.floor(random() * 50)}`, { key, session })
    else await api(paths[Math.floor(random() * paths.length)] ?? '/v1/pets', { key, session })
  }
  await admin('/__mock/clock', session, { advanceSeconds: 0.412 })
  await api('/v1/pets/404', { key: 'test-pro', session })
  await admin('/__mock/clock', session, { advanceSeconds: 0.231 })
  await api('/v1/pets', { key: 'test-business', session, method: 'POST', body: { name: 'Biscuit', categoryId: 3 } })
  await admin('/__mock/clock', session, { advanceSeconds: 0.187 })
  await api('/v1/pets?limit=5', { key: 'test-free', session })
  await admin('/__mock/clock', session, { advanceSeconds: 0.305 })
  await api('/v1/pets?status=available', { key: 'test-pro', session })

  // Wait for the last request's row, not only for 200 rows: on a busy machine the stream's events may still be on
  // their way when the table first holds 200 rows, and the 404 is among the last four.
  const newest = async () => {
    const cells = await requestCells(page)
    return { rows: cells.length, first: cells[0]?.slice(0, 3) }
  }
  await expect.poll(newest, SEEN).toEqual({ rows: 200, first: ['09:41:53.568', 'GET', '/v1/pets?status=available'] })
  const statuses = (await requestCells(page)).map(([, , , status]) => status?.split(' ')[0])
  expect(statuses).toEqual(expect.arrayContaining(['200', '201', '404', '429']))
  await requestRows(page).filter({ hasText: '429' }).first().click()
  await expect.poll(textOf(page.getByRole('region', { name: 'Request details' })), SEEN).toContain('→ 429')
  await page.mouse.move(1_200, 880)
  await mkdir(join(ROOT, 'docs', 'images'), { recursive: true })
  await page.screenshot({ path: README_SCREENSHOT })
  console.log(`README screenshot of the control panel: ${README_SCREENSHOT}`)

  // The table built live is the one a page opened now reads: the newest 200 of the journal's 284.
  const live = await requestCells(page)
  const opened = await openPanel(session)
  expect(await requestCells(opened)).toEqual(live)
  expect(live[0]?.slice(0, 3)).toEqual(['09:41:53.568', 'GET', '/v1/pets?status=available'])
})
