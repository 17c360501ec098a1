import { expect, test } from 'petstore-mock/playwright'
import { MOCK } from '../playwright.config'

// Each test gets a session of its own on the mock: its page's requests carry it, and the app's server forwards it.
test.use({ petStoreServer: { url: MOCK } })

test('the server component and the client component list the pets', async ({ page, petStoreSession }) => {
  await page.goto('/')
  await expect(page.locator('#server-pets li')).toHaveCount(5)
  await expect(page.locator('#client-pets li')).toHaveCount(5)
  // Both calls reached this test's session: the page's render and the route handler.
  expect(await petStoreSession.admin.journal({ limit: 10 })).toHaveLength(2)
})

test('a used-up key shows in both, in this test only', async ({ page, petStoreSession }) => {
  // The session's clock pinned first: a minute that turned before the page loads would free the key again.
  await petStoreSession.admin.setClock('2026-06-01T12:00:00Z')
  await petStoreSession.admin.setKey('test-free', { minuteUsed: 'all' })
  await page.goto('/')
  await expect(page.locator('#server-pets')).toHaveText('429 rate_limited, retry after 60 s')
  await expect(page.locator('#client-pets')).toHaveText('429 rate_limited, retry after 60 s')
})
