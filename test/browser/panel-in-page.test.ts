/**
 * The control panel in the app's own page: `startPetStoreWorker({ panel: true })` in a small Vite app
 * (test/browser/panel-page) whose global styles are as loud as an app's can be. The panel follows the world in the
 * page: the page's fetches, its scenario and its clock. Neither side's styles reach the other, the panel loads
 * nothing from another origin, and its code is a chunk of its own that only `panel: true` loads.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { build } from 'vite'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { goneText, openNewestRow, realTimeSince, SEEN } from './live.js'
import { collectPageErrors, initWorkerScript, launchChromium, ROOT, type StaticServer, serveDirectory } from './support.js'

const PAGE_DIR = join(ROOT, 'test', 'browser', 'panel-page')
const PANEL_NAME = 'petstore-mock control panel'
const FROZEN = '2026-06-01T12:00:00Z'

interface Chunk {
  fileName: string
  code: string
  isEntry: boolean
  isDynamicEntry: boolean
  imports: string[]
  dynamicImports: string[]
}

let browser: Browser | undefined
let server: StaticServer | undefined
let chunks: Chunk[] = []
const contexts: BrowserContext[] = []
let pageErrors: string[] = []
const pageRequests: string[] = []

/** Builds the page as an app's production build (worker script included) and returns its JavaScript chunks. */
async function buildPanelPage(): Promise<{ outDir: string; chunks: Chunk[] }> {
  const outDir = join(PAGE_DIR, 'dist')
  const result = await build({
    root: PAGE_DIR,
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  })
  await initWorkerScript(outDir)
  const outputs = (Array.isArray(result) ? result : [result]) as Array<{ output: Array<Chunk & { type: string }> }>
  return { outDir, chunks: outputs.flatMap(({ output }) => output.filter((file) => file.type === 'chunk')) }
}

beforeAll(async () => {
  const [built, launched] = await Promise.all([buildPanelPage(), launchChromium()])
  chunks = built.chunks
  browser = launched
  server = await serveDirectory(built.outDir)
})

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()))
  const elsewhere = pageRequests.splice(0).filter((url) => !url.startsWith(`${origin()}/`))
  expect(pageErrors, 'errors in the page').toEqual([])
  expect(elsewhere, 'requests outside the page origin').toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const origin = (): string => {
  if (!server) throw new Error('The static server did not start.')
  return server.url
}

/** Opens the app in a fresh profile and waits until the worker answers and the panel's button is there. */
async function openApp(): Promise<Page> {
  if (!browser) throw new Error('Chromium did not start.')
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true })
  contexts.push(context)
  // The context sees the service worker's own requests too.
  context.on('request', (request) => pageRequests.push(request.url()))
  const page = await context.newPage()
  pageErrors = collectPageErrors(page)
  await page.goto(`${origin()}/`)
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 }).catch((error: unknown) => {
    throw new Error(`The app did not start: ${pageErrors.join('\n') || String(error)}`)
  })
  await launcher(page).waitFor({ state: 'visible', timeout: SEEN.timeout })
  return page
}

const launcher = (page: Page) => page.getByRole('button', { name: 'petstore-mock', exact: true })
const dialog = (page: Page) => page.getByRole('dialog', { name: PANEL_NAME })

/** Clicks the floating button and waits for the panel to have read the world. */
async function openPanel(page: Page): Promise<Locator> {
  await launcher(page).click()
  const panel = dialog(page)
  await panel.waitFor({ state: 'visible', timeout: SEEN.timeout })
  await expect.poll(() => clockText(page), SEEN).toMatch(/^\d{4}-\d\d-\d\dT/)
  return panel
}

/** `fetch` from the page (the app's own call), answered by the service worker. */
const fetchApi = (page: Page, key: string, path = '/v1/pets', init: { method?: string; body?: unknown } = {}): Promise<number> =>
  page.evaluate(([key, path, init]) => window.panelPage?.fetchApi(key, path, init) ?? Promise.resolve(0), [key, path, init] as const)

const requestRows = (page: Page) => page.getByRole('table', { name: 'Requests' }).locator('tbody tr')
const requestSummary = (page: Page): Promise<string[]> =>
  requestRows(page).evaluateAll((rows) =>
    rows.map((row) => {
      const [, method, path, status, plan] = [...(row as HTMLTableRowElement).cells].map((cell) => cell.textContent?.trim() ?? '')
      return `${method} ${path} ${status} ${plan}`
    }),
  )
const clockText = async (page: Page): Promise<string> => (await page.getByRole('status', { name: 'Clock' }).textContent())?.trim() ?? ''
const textOf = (locator: Locator) => async (): Promise<string> => (await locator.textContent({ timeout: SEEN.timeout }))?.trim() ?? ''

/** What an element looks like, for comparing the app's elements before and after the panel opens. */
function looksOf(locator: Locator) {
  return locator.evaluate((element) => {
    const style = getComputedStyle(element)
    return {
      color: style.color,
      fontSize: style.fontSize,
      fontFamily: style.fontFamily,
      lineHeight: style.lineHeight,
      display: style.display,
      padding: style.padding,
      margin: style.margin,
      background: style.backgroundColor,
      boxSizing: style.boxSizing,
    }
  })
}

it('shows a floating "petstore-mock" button that opens the control panel as a dialog, and Escape closes it', async () => {
  const page = await openApp()
  expect(await launcher(page).getAttribute('aria-expanded')).toBe('false')
  expect(await dialog(page).isVisible()).toBe(false)

  const panel = await openPanel(page)
  expect(await launcher(page).getAttribute('aria-expanded')).toBe('true')
  expect(await panel.getByRole('heading', { name: 'petstore-mock', exact: true }).textContent()).toBe('petstore-mock')
  await panel.getByText('this page', { exact: true }).waitFor({ state: 'visible', timeout: SEEN.timeout })
  // The world in the page has no other session: no picker.
  expect(await panel.getByRole('combobox', { name: 'Session' }).count()).toBe(0)
  const focusedText = () =>
    page.evaluate(() => {
      let element = document.activeElement
      while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement
      return element?.textContent?.trim()
    })
  expect(await focusedText()).toBe('Close')

  await page.keyboard.press('Escape')
  await dialog(page).waitFor({ state: 'hidden', timeout: SEEN.timeout })
  expect(await launcher(page).getAttribute('aria-expanded')).toBe('false')
  expect(await focusedText()).toBe('petstore-mock')

  await openPanel(page)
  await page.getByRole('button', { name: 'Close', exact: true }).click()
  await dialog(page).waitFor({ state: 'hidden', timeout: SEEN.timeout })
})

it("lists the page's own fetches in its Requests table, live and newest first, with their details", async () => {
  const page = await openApp()
  expect(await fetchApi(page, 'test-free', '/v1/pets?limit=2')).toBe(200)
  const panel = await openPanel(page)
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets?limit=2 200 free'])

  expect(await fetchApi(page, 'test-pro', '/v1/pets/999')).toBe(404)
  expect(await fetchApi(page, 'test-business', '/v1/pets', { method: 'POST', body: { name: 'Biscuit', categoryId: 3 } })).toBe(201)
  expect(await fetchApi(page, '', '/v1/pets')).toBe(401)
  await expect
    .poll(() => requestSummary(page), SEEN)
    .toEqual([
      'GET /v1/pets 401 unauthorized no key',
      'POST /v1/pets 201 business',
      'GET /v1/pets/999 404 pet_not_found pro',
      'GET /v1/pets?limit=2 200 free',
    ])

  await page.getByLabel('Status filter').fill('4xx')
  expect(await requestSummary(page)).toEqual(['GET /v1/pets 401 unauthorized no key', 'GET /v1/pets/999 404 pet_not_found pro'])
  await page.getByLabel('Status filter').fill('')

  await requestRows(page).last().click()
  const details = panel.getByRole('region', { name: 'Request details' })
  await expect.poll(textOf(details), SEEN).toContain('GET /v1/pets?limit=2 → 200')
  expect(await textOf(details.getByRole('table', { name: 'Request headers' }))()).toMatch(/authorizationBearer …free/)
  expect(await textOf(details)()).not.toContain('test-free')
  await expect
    .poll(
      async () =>
        (await page
          .getByRole('table', { name: 'Keys' })
          .getByRole('row', { name: /^test-free/ })
          .textContent()) ?? '',
      SEEN,
    )
    // The day's count: the page's clock is real time, and a minute that turns between the request and the read empties
    // the minute's count (a run at 03:20:59 read "60 / 60").
    .toContain('999 / 1000')

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export HAR' }).click()])
  const { log } = JSON.parse(await readFile(await download.path(), 'utf8')) as {
    log: { version: string; entries: Array<{ request: { method: string; url: string }; response: { status: number } }> }
  }
  expect(log.version).toBe('1.2')
  expect(log.entries.map((entry) => `${entry.request.method} ${entry.request.url} ${entry.response.status}`)).toEqual([
    `GET ${origin()}/v1/pets?limit=2 200`,
    `GET ${origin()}/v1/pets/999 404`,
    `POST ${origin()}/v1/pets 201`,
    `GET ${origin()}/v1/pets 401`,
  ])
})

it("switches the page's scenario from the Scenario select, and the page's next fetch follows it", async () => {
  const page = await openApp()
  await openPanel(page)
  const select = page.getByRole('combobox', { name: 'Scenario' })
  const options = await select.locator('option').allTextContents()
  expect(options.filter((option) => option.endsWith('(chaos)')).map((option) => option.split(' ')[0])).toEqual(['flaky', 'outage'])
  expect(await fetchApi(page, 'test-free')).toBe(200)

  await select.selectOption('rate-limited')
  await expect.poll(() => select.inputValue(), SEEN).toBe('rate-limited')
  expect(await fetchApi(page, 'test-free')).toBe(429)
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-01T12:00:30.000Z')
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets 429 rate_limited free'])

  await select.selectOption('empty-store')
  await expect.poll(() => select.inputValue(), SEEN).toBe('empty-store')
  expect(await fetchApi(page, 'test-free', '/v1/pets/1')).toBe(404)
})

it("moves the page's clock with the clock buttons, and the sunset makes getPet answer 410", async () => {
  const page = await openApp()
  await openPanel(page)
  const moment = page.getByLabel('Moment (ISO 8601)')
  await moment.fill(FROZEN)
  await page.getByRole('button', { name: 'Set clock' }).click()
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-01T12:00:00.000Z')

  await page.getByRole('button', { name: 'Advance 1 hour' }).click()
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-01T13:00:00.000Z')
  await page.getByRole('button', { name: 'Advance 1 day' }).click()
  await expect.poll(() => clockText(page), SEEN).toBe('2026-06-02T13:00:00.000Z')
  expect(await fetchApi(page, 'test-free', '/v1/pets/1')).toBe(200)

  // One click moves the clock (it used to fill in the moment only), and the moment shows it.
  await page.getByRole('button', { name: 'Sunset' }).click()
  await expect.poll(() => clockText(page), SEEN).toBe('2030-12-05T00:00:00.000Z')
  expect(await moment.inputValue()).toBe('2030-12-05T00:00:00Z')
  expect(await fetchApi(page, 'test-free', '/v1/pets/1')).toBe(410)
  await expect.poll(() => requestSummary(page).then((rows) => rows[0]), SEEN).toBe('GET /v1/pets/1 410 gone free')

  const clicked = Date.now()
  await page.getByRole('button', { name: 'Real time' }).click()
  await expect.poll(() => realTimeSince(() => clockText(page), clicked), SEEN).toBe('real time')
  expect(await fetchApi(page, 'test-free', '/v1/pets/1')).toBe(200)
})

it("clears the open request details when the page's world is reset or switches scenario", async () => {
  const page = await openApp()
  const panel = await openPanel(page)
  const details = panel.getByRole('region', { name: 'Request details' })
  const openNewest = (path: string) => openNewestRow(page, path, async () => expect(await fetchApi(page, 'test-pro', path)).toBe(200))

  const first = await openNewest('/v1/pets?limit=1')
  await page.getByRole('button', { name: 'Reset' }).click()
  await expect.poll(textOf(details), SEEN).toBe(goneText(first, 'the session was reset'))
  await expect.poll(() => requestSummary(page), SEEN).toEqual([])

  const second = await openNewest('/v1/pets?limit=2')
  await page.getByRole('combobox', { name: 'Scenario' }).selectOption('empty-store')
  await expect.poll(textOf(details), SEEN).toBe(goneText(second, 'the scenario "empty-store" started'))
  await expect.poll(() => requestSummary(page), SEEN).toEqual([])
})

it('says what to send while the Requests table is empty: the fetch call of a first request, from the page', async () => {
  const page = await openApp()
  const panel = await openPanel(page)
  const hint = panel.locator('section.requests p.empty')
  const call = "fetch('/v1/pets', { headers: { Authorization: 'Bearer test-free' } })"
  await expect.poll(textOf(hint), SEEN).toBe(`No requests yet: send one, e.g. ${call}`)

  // The call as shown, run in the page.
  const shown = (await hint.locator('code').textContent()) ?? ''
  expect(await page.evaluate<number>(`(${shown}).then((response) => response.status)`)).toBe(200)
  await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets 200 free'])
  await hint.waitFor({ state: 'hidden', timeout: SEEN.timeout })
  expect(await panel.locator('section.keys p.empty').isVisible()).toBe(false)
})

it("keeps the app's global styles out of the panel and the panel's styles out of the app", async () => {
  const page = await openApp()
  const appElements = ['#app-title', '#app-text', '#load-pets', '#load-status', 'body', 'html']
  const before = await Promise.all(appElements.map((selector) => looksOf(page.locator(selector))))
  expect(before[1]).toMatchObject({ color: 'rgb(255, 0, 0)', fontSize: '40px', fontFamily: 'serif' })
  expect(before[2]?.display).toBe('none')

  // The launcher is a button too: `button { display: none }` must not hide it.
  expect(await looksOf(launcher(page))).toMatchObject({ color: 'rgb(255, 255, 255)', fontSize: '13px', display: 'block' })
  expect(await launcher(page).isVisible()).toBe(true)
  const panel = await openPanel(page)

  const heading = await looksOf(panel.getByRole('heading', { name: 'petstore-mock', exact: true }))
  expect(heading.color).toBe('rgb(28, 32, 36)')
  expect(heading.fontSize).toBe('18px')
  expect(heading.fontFamily).not.toBe('serif')
  const cell = await looksOf(page.getByRole('table', { name: 'Keys' }).getByRole('cell', { name: 'free', exact: true }))
  expect(cell).toMatchObject({ color: 'rgb(28, 32, 36)', fontSize: '13px', lineHeight: expect.not.stringMatching(/^120px$/) })
  const button = await looksOf(page.getByRole('button', { name: 'Advance 1 hour' }))
  expect(button.display).not.toBe('none')
  expect(button.color).toBe('rgb(28, 32, 36)')
  expect(button.boxSizing).toBe('border-box')
  expect(await page.getByRole('button', { name: 'Advance 1 hour' }).isVisible()).toBe(true)
  const select = await looksOf(page.getByRole('combobox', { name: 'Scenario' }))
  expect(select.color).toBe('rgb(28, 32, 36)')
  // The app's `--bg: black` and `--line: yellow` do not reach the panel's own variables.
  expect(
    await page
      .getByRole('table', { name: 'Keys' })
      .evaluate((table) => getComputedStyle(table.closest('section') as Element).backgroundColor),
  ).toBe('rgb(255, 255, 255)')

  const after = await Promise.all(appElements.map((selector) => looksOf(page.locator(selector))))
  expect(after).toEqual(before)
  // The panel adds no style element to the document: its styles live in its shadow roots.
  expect(await page.evaluate(() => document.head.querySelectorAll('style').length)).toBe(0)
  await page.screenshot({ path: join(ROOT, 'test-results', 'panel-in-page.png') })
})

it('loads the panel from the page origin only, as a chunk of its own', async () => {
  const page = await openApp()
  await openPanel(page)
  const scripts = pageRequests.filter((url) => url.endsWith('.js')).map((url) => new URL(url).pathname)
  const panelChunk = chunks.find((chunk) => chunk.code.includes(PANEL_NAME))
  expect(panelChunk).toBeDefined()
  expect(scripts).toContain(`/${panelChunk?.fileName}`)
  expect(pageRequests.every((url) => url.startsWith(`${origin()}/`))).toBe(true)
})

it('builds the panel as a separate chunk that the entry imports only dynamically', async () => {
  const entries = chunks.filter((chunk) => chunk.isEntry)
  const withPanel = chunks.filter((chunk) => chunk.code.includes(PANEL_NAME))
  expect(entries).toHaveLength(1)
  expect(withPanel).toHaveLength(1)
  const [entry] = entries
  const [panel] = withPanel
  expect(panel?.isEntry).toBe(false)
  expect(panel?.isDynamicEntry).toBe(true)
  expect(entry?.imports).not.toContain(panel?.fileName)
  expect(entry?.dynamicImports).toContain(panel?.fileName)
  // The panel's styles and tables are in that chunk, not in the app's entry.
  expect(entry?.code).not.toContain('Advance 1 hour')
  expect(entry?.code).not.toContain('grid-template-columns')
  const html = await readFile(join(PAGE_DIR, 'dist', 'index.html'), 'utf8')
  expect(html).not.toContain(panel?.fileName)
})

it("shows the page's timeline as a strip, follows the page's clock and fetches, and Stop switches to the default scenario", async () => {
  const page = await openApp()
  await openPanel(page)
  const select = page.getByRole('combobox', { name: 'Scenario' })
  const timeline = page.getByRole('region', { name: 'Timeline' })
  const strip = () =>
    timeline
      .getByRole('listitem')
      .evaluateAll((items) => items.map((item) => `${item.textContent}${item.getAttribute('aria-current') === 'step' ? ' *' : ''}`))
  expect(await timeline.isVisible()).toBe(false)

  await select.selectOption('outage-incident')
  await expect.poll(strip, SEEN).toEqual(['slowing0 req', 'outage0 req', 'recovered0 req'])
  await page.getByLabel('Moment (ISO 8601)').fill('2026-06-01T12:11:00Z')
  await page.getByRole('button', { name: 'Set clock' }).click()
  expect(await fetchApi(page, 'test-free')).toBe(503)
  await expect.poll(strip, SEEN).toEqual(['slowing0 req', 'outage1 req *', 'recovered0 req'])
  await expect
    .poll(textOf(timeline.locator('.verdict')), SEEN)
    .toBe('Verdict: ok (the scenario expects nothing). Error rate 100 %. Banned keys: none.')

  await timeline.getByRole('button', { name: 'Stop' }).click()
  await expect.poll(() => select.inputValue(), SEEN).toBe('default')
  await timeline.waitFor({ state: 'hidden', timeout: SEEN.timeout })
  expect(await fetchApi(page, 'test-free')).toBe(200)
})
