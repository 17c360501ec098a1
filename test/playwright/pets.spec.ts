import { expect, test } from 'petstore-mock/playwright'
import { APP, serveApp } from './app.js'

// Rate windows are UTC minutes: a pinned clock keeps a test's requests in one, at any second of the day.
// `drops`: a scenario of the test's own, every API request's connection dropped.
const drops = { name: 'drops', description: 'every connection dropped', faults: [{ chaos: true, fault: { type: 'network-error' } }] }
test.use({ petStoreOptions: { seed: 1, clock: '2026-06-01T12:00:00Z', scenarios: [drops] } })

test.beforeEach(async ({ page }) => {
  await serveApp(page)
})

test('the page lists the seeded pets of its own world, across origins', async ({ page, petStore }) => {
  await page.goto(APP)
  await expect(page.locator('#status')).toHaveText('200')
  const names = (await petStore.fetch('/v1/pets?limit=5', { headers: { authorization: 'Bearer test-pro' } }).then((r) => r.json())) as {
    name: string
  }[]
  await expect(page.locator('#pets li')).toHaveText(names.map((pet) => pet.name))
  expect(petStore.journal.all().map((entry) => entry.status)).toEqual([200, 200])
})

for (const worker of ['one', 'another']) {
  test(`exhausting the Free key's minute in ${worker} test leaves every other test's world alone`, async ({ page, petStore }) => {
    await page.goto(APP)
    await expect(page.locator('#status')).toHaveText('200')
    for (let i = 2; i <= 60; i++) expect(await page.evaluate(() => (window as unknown as { load(): Promise<number> }).load())).toBe(200)
    expect(await page.evaluate(() => (window as unknown as { load(): Promise<number> }).load())).toBe(429)
    await expect(page.locator('#status')).toHaveText('429 retry 60')
    expect(petStore.journal.all()).toHaveLength(61)
  })
}

test('the test moves its world’s clock: the key is served again after Retry-After', async ({ page, petStore }) => {
  await page.goto(APP)
  const load = () => page.evaluate(() => (window as unknown as { load(): Promise<number> }).load())
  for (let i = 2; i <= 61; i++) await load()
  await expect(page.locator('#status')).toHaveText('429 retry 60')
  petStore.clock.advance(60_000)
  expect(await load()).toBe(200)
})

test('a scenario of the test reaches the page: an outage answers 503, a dropped connection fails the fetch', async ({ page, petStore }) => {
  await petStore.useScenario('outage')
  await page.goto(APP)
  await expect(page.locator('#status')).toHaveText(/^503/)
  await petStore.useScenario('drops')
  expect(await page.evaluate(() => (window as unknown as { load(): Promise<number> }).load())).toBe(0)
  await expect(page.locator('#status')).toHaveText('failed')
  await petStore.useScenario('default')
  expect(await page.evaluate(() => (window as unknown as { load(): Promise<number> }).load())).toBe(200)
})
