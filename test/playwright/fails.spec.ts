import { expect, test } from 'petstore-mock/playwright'
import { APP, serveApp } from './app.js'

// Fails on purpose: run only when test/browser/playwright-fixture.test.ts asks (playwright.config.ts), to see the
// journal of the failing test's world attached to the report.
test('attaches the journal of a test that fails', async ({ page, petStore }) => {
  await serveApp(page)
  await page.goto(APP)
  await expect(page.locator('#status')).toHaveText('200')
  expect(petStore.journal.all()).toHaveLength(0)
})
