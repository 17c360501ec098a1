import { expect, type Page, test } from '@playwright/test'
import type { PetStore } from 'petstore-mock'

// One story alone in the preview frame, as Storybook's own test runner opens it.
const open = (page: Page, id: string) => page.goto(`/iframe.html?id=${id}&viewMode=story`)

test('Default lists five pets', async ({ page }) => {
  await open(page, 'petlist--default')
  await expect(page.getByRole('listitem')).toHaveCount(5)
})

test('QuotaExhausted shows the 429 of a used-up day', async ({ page }) => {
  await open(page, 'petlist--quota-exhausted')
  await expect(page.getByRole('alert')).toContainText('429 rate_limited')
  await expect(page.getByRole('alert')).toContainText('Retry after 21600 s')
})

test('Banned shows the 429 of a banned key', async ({ page }) => {
  await open(page, 'petlist--banned')
  await expect(page.getByRole('alert')).toContainText('429 key_temporarily_banned')
  await expect(page.getByRole('alert')).toContainText('Retry after 900 s')
})

test('SlowDayPeak lists the pets, slowly, at the peak', async ({ page }) => {
  await open(page, 'petlist--slow-day-peak')
  await expect(page.getByText('Stage: peak')).toBeVisible()
  await expect(page.getByRole('listitem')).toHaveCount(5)
  // The story's world is on window.petStore too: its one answer came in the peak stage.
  const peak = await page.evaluate(() =>
    (window as unknown as { petStore: PetStore }).petStore.timeline()?.stages.find((stage) => stage.name === 'peak'),
  )
  expect(peak?.statuses).toEqual({ 200: 1 })
})

test('PetDetail works before the Sunset, and is gone after it', async ({ page }) => {
  await open(page, 'petdetail--default')
  await expect(page.getByRole('heading')).toBeVisible()
  await open(page, 'petdetail--after-sunset')
  await expect(page.getByRole('alert')).toContainText('410 gone')
})

test('the story after Banned renders normally, in the same page', async ({ page }) => {
  await page.goto('/?path=/story/petlist--banned')
  const preview = page.frameLocator('#storybook-preview-iframe')
  await expect(preview.getByRole('alert')).toContainText('429 key_temporarily_banned')
  // A mark on the preview's window: still there after the switch, so no reload gave the next story its world.
  const frame = () => {
    const found = page.frame({ url: /iframe\.html/ })
    if (!found) throw new Error('the Storybook page has no preview frame')
    return found
  }
  await frame().evaluate(() => Object.assign(window, { sameWindow: true }))

  await page.locator('#petlist--default').click()
  await expect(preview.getByRole('listitem')).toHaveCount(5)
  expect(await frame().evaluate(() => (window as unknown as { sameWindow?: boolean }).sameWindow)).toBe(true)
})
