import { expect, test } from 'petstore-mock/playwright'
import { MOCK } from './playwright.config.js'

test.use({ petStoreServer: { url: MOCK } })

test("the app's server and its page both list the pets of the test's session", async ({ page, petStoreSession }) => {
  await page.goto('/')
  await expect(page.locator('#server')).toHaveText(/^200 \w+/)
  await expect(page.locator('#client')).toHaveText(/^200 \w+/)
  const journal = await petStoreSession.admin.journal({ limit: 10 })
  expect(journal).toHaveLength(2)
})

for (const run of ['one', 'another']) {
  test(`${run} test uses up the Free key in its own session: the server and the page see 429`, async ({ page, petStoreSession }) => {
    // The session's clock pinned first: a minute that turned before the page loads would free the key again.
    await petStoreSession.admin.setClock('2026-06-01T12:00:00Z')
    await petStoreSession.admin.setKey('test-free', { minuteUsed: 'all' })
    await page.goto('/')
    await expect(page.locator('#server')).toHaveText('429 ')
    await expect(page.locator('#client')).toHaveText('429 ')
  })
}

test("a scenario the test switches reaches the app's server and its page", async ({ page, petStoreSession }) => {
  await petStoreSession.admin.useScenario('outage')
  await page.goto('/')
  await expect(page.locator('#server')).toHaveText(/^503/)
  await expect(page.locator('#client')).toHaveText(/^503/)
})
