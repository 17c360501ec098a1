import type { Page } from '@playwright/test'
import { expect, test } from 'petstore-mock/playwright'

// Each test gets a world of its own; a pinned clock keeps its requests in one rate window at any second of the day.
test.use({ petStoreOptions: { seed: 1, clock: '2026-06-01T12:00:00Z' } })
// Tests of this file run side by side (with --workers 2 or more), each against its own world.
test.describe.configure({ mode: 'parallel' })

// Your app's page; here a blank one on its own origin, calling the API as a front end does.
test.beforeEach(async ({ page }) => {
  await page.route('https://app.test/', (route) => route.fulfill({ contentType: 'text/html', body: '<title>app</title>' }))
  await page.goto('https://app.test/')
})

const listPets = (page: Page, key: string) =>
  page.evaluate(async (key) => {
    const response = await fetch('https://api.petstore.test/v1/pets', { headers: { Authorization: `Bearer ${key}` } })
    return { status: response.status, retryAfter: response.headers.get('Retry-After') }
  }, key)

for (const run of ['one', 'another']) {
  test(`${run} test uses up the Free key's minute in a world of its own`, async ({ page, petStore }) => {
    for (let i = 0; i < 60; i++) expect((await listPets(page, 'test-free')).status).toBe(200)
    expect(await listPets(page, 'test-free')).toEqual({ status: 429, retryAfter: '60' })
    expect(petStore.journal.all()).toHaveLength(61)
  })
}

test('the test moves its world’s clock past Retry-After', async ({ page, petStore }) => {
  for (let i = 0; i < 61; i++) await listPets(page, 'test-free')
  petStore.clock.advance(60_000)
  expect((await listPets(page, 'test-free')).status).toBe(200)
})

test('a scenario switched by the test reaches the page', async ({ page, petStore }) => {
  await petStore.useScenario('outage')
  expect((await listPets(page, 'test-pro')).status).toBe(503)
})
