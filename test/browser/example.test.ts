import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import {
  buildExample,
  collectPageErrors,
  launchChromium,
  RESULTS_DIR,
  type StaticServer,
  serveDirectory,
  workerScriptOf,
} from './support.js'

const SCREENSHOT = join(RESULTS_DIR, 'browser-example.png')
const STORAGE_KEY = 'petstore-mock:state'

let browser: Browser | undefined
let server: StaticServer | undefined
const contexts: BrowserContext[] = []
let pageErrors: string[] = []

beforeAll(async () => {
  const [dist, launched] = await Promise.all([buildExample(), launchChromium()])
  browser = launched
  server = await serveDirectory(dist)
})

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()))
  expect(pageErrors, 'errors in the page').toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** Opens the built example in a fresh profile (no service worker, no localStorage) and waits for the first listing. */
async function openExample(query = ''): Promise<Page> {
  if (!browser || !server) throw new Error('The browser or the server did not start.')
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } })
  contexts.push(context)
  const page = await context.newPage()
  pageErrors = collectPageErrors(page)
  await page.goto(`${server.url}/${query}`)
  await waitUntilReady(page)
  return page
}

async function waitUntilReady(page: Page): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 }).catch((error: unknown) => {
    throw new Error(`The example did not start: ${pageErrors.join('\n') || String(error)}`)
  })
}

const text = async (page: Page, testId: string): Promise<string> => (await page.getByTestId(testId).textContent()) ?? ''
const listed = (page: Page): Promise<string[]> => page.getByTestId('pets').locator('li').allTextContents()

async function createPet(page: Page, name: string, categoryId: number): Promise<void> {
  await page.getByTestId('create-name').fill(name)
  await page.getByTestId('create-category').fill(String(categoryId))
  await page.getByTestId('create').locator('button[type="submit"]').click()
  await page.getByTestId('pets').locator('li', { hasText: name }).waitFor()
}

it('lists the seeded pets, the same as the in-process mock with seed 1', async () => {
  const inProcess = createPetStore({ seed: 1 })
  const response = await inProcess.fetch('/v1/pets?limit=100', { headers: { Authorization: 'Bearer test-free' } })
  const pets = (await response.json()) as Array<{ id: number; name: string; status?: string }>
  const page = await openExample()

  expect(await workerScriptOf(page)).toBe(`${server?.url}/mockServiceWorker.js`)
  expect(pets).toHaveLength(50)
  expect(await listed(page)).toEqual(pets.map((pet) => `#${pet.id} ${pet.name}${pet.status ? ` (${pet.status})` : ''}`))
  expect(await text(page, 'ratelimit-limit')).toBe('60')
  expect(await text(page, 'ratelimit-remaining')).toBe('59')
})

it('shows a created pet in the list with the next id', async () => {
  const page = await openExample()
  await createPet(page, 'Biscuit', 3)

  expect(await text(page, 'create-result')).toBe('Created #51 Biscuit (Location: /v1/pets/51)')
  expect((await listed(page)).at(-1)).toBe('#51 Biscuit')
})

it('answers the 61st request of a Free key with a 429 carrying Retry-After, as the screenshot it writes shows', async () => {
  const page = await openExample()
  // From the console, as a developer would: freeze the clock 30 s into a fresh minute, ten minutes ahead.
  await page.evaluate(() => {
    const { petStore } = window as unknown as { petStore: { clock: { set(moment: number): void } } }
    const now = Date.now()
    petStore.clock.set(now - (now % 60_000) + 10 * 60_000 + 30_000)
  })
  await page.getByTestId('burst').click()
  await page.getByTestId('burst-summary').filter({ hasText: 'requests' }).waitFor()

  expect(await text(page, 'burst-summary')).toBe('61 requests: 60 × 200, 1 × 429')
  expect(await text(page, 'burst-status')).toBe('429')
  expect(await text(page, 'burst-error')).toMatch(/^429 rate_limited: /)
  expect(await text(page, 'retry-after')).toBe('30')
  expect(await text(page, 'ratelimit-limit')).toBe('60')
  expect(await text(page, 'ratelimit-remaining')).toBe('0')

  await page.getByTestId('get-pet').click()
  await page.getByTestId('get-pet-status').filter({ hasText: '429' }).waitFor()
  await mkdir(RESULTS_DIR, { recursive: true })
  await page.screenshot({ path: SCREENSHOT, fullPage: true })
  console.log(`Screenshot of the example after the 429: ${SCREENSHOT}`)
})

it('shows the Deprecation, Sunset and Link headers of GET /v1/pets/1', async () => {
  const page = await openExample()
  await page.getByTestId('get-pet').click()
  await page.getByTestId('get-pet-status').filter({ hasText: '200' }).waitFor()

  expect(await text(page, 'deprecation')).toBe('@1767225600')
  expect(await text(page, 'sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
  expect(await text(page, 'link')).toBe('</v1/pets>; rel="successor-version"')
})

it('keeps a created pet across a reload with ?persist=1', async () => {
  const page = await openExample('?persist=1')
  await createPet(page, 'Biscuit', 3)
  // The state is saved shortly after the response (debounced): wait until it holds the new pet.
  await page.waitForFunction((key) => localStorage.getItem(key)?.includes('"Biscuit"') === true, STORAGE_KEY)
  await page.reload()
  await waitUntilReady(page)

  expect((await listed(page)).at(-1)).toBe('#51 Biscuit')
  expect(await listed(page)).toHaveLength(51)
})

// Regression: saves waited 200 ms after each answer and nothing saved when the page went away, so a pet created
// just before a reload was 404 after it, and the rate-limit counter went back.
it('keeps a pet and the rate-limit count the page saw acknowledged across an immediate reload with ?persist=1', async () => {
  const page = await openExample('?persist=1')
  // A fresh minute on a frozen clock, so the count cannot roll over during the test.
  await page.evaluate(() => {
    const { petStore } = window as unknown as { petStore: { clock: { set(moment: number): void } } }
    const now = Date.now()
    petStore.clock.set(now - (now % 60_000) + 10 * 60_000 + 30_000)
  })
  // The reload starts in the same task as the answer: no timer can run before the page goes away. What the page saw
  // is kept in sessionStorage (which a reload keeps), since the evaluate itself may not outlive the navigation.
  const navigated = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: 30_000 })
  await page.evaluate(() => {
    const headers = { Authorization: 'Bearer test-free', 'Content-Type': 'application/json' }
    void fetch('/v1/pets', { method: 'POST', headers, body: JSON.stringify({ name: 'Quick', categoryId: 2 }) }).then((response) => {
      const seen = { status: response.status, remaining: response.headers.get('x-ratelimit-remaining') }
      sessionStorage.setItem('petstore-mock-test:seen', JSON.stringify(seen))
      window.location.reload()
    })
  })
  await navigated
  await waitUntilReady(page)
  const seen: unknown = JSON.parse((await page.evaluate(() => sessionStorage.getItem('petstore-mock-test:seen'))) ?? 'null')
  expect(seen).toEqual({ status: 201, remaining: '59' })

  expect((await listed(page)).at(-1)).toBe('#51 Quick')
  // The listing after the reload is the key's second request of that minute.
  expect(await text(page, 'ratelimit-remaining')).toBe('58')
})

it('starts from the seed again after a reload without persist', async () => {
  const page = await openExample()
  await createPet(page, 'Biscuit', 3)
  await page.reload()
  await waitUntilReady(page)

  expect(await listed(page)).toHaveLength(50)
  expect((await listed(page)).join('\n')).not.toContain('Biscuit')
  expect(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY)).toBeNull()
})

it('forgets the persisted state with the reset button', async () => {
  const page = await openExample('?persist=1')
  await createPet(page, 'Biscuit', 3)
  await page.waitForFunction((key) => localStorage.getItem(key)?.includes('"Biscuit"') === true, STORAGE_KEY)
  await page.getByTestId('reset').click()
  await page.getByTestId('list-message').filter({ hasText: '50 pets' }).waitFor()
  await page.reload()
  await waitUntilReady(page)

  expect(await listed(page)).toHaveLength(50)
})

it('switches the scenario from the console with petStore.useScenario()', async () => {
  const page = await openExample()
  await page.evaluate(() =>
    (window as unknown as { petStore: { useScenario(name: string): Promise<void> } }).petStore.useScenario('empty-store'),
  )
  await page.getByTestId('refresh').click()
  await page.getByTestId('list-message').filter({ hasText: 'No pets.' }).waitFor()

  expect(await listed(page)).toEqual([])
})
