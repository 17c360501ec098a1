/**
 * Waiting for what a page shows, in the panel's browser tests: ceilings for a busy machine, never budgets.
 *
 * @example
 * await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets 200 free'])
 * await expect.poll(() => realTimeSince(() => clockText(page), clicked), SEEN).toBe('real time')
 */
import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'

/**
 * How long a change may take to show in a page. vitest's `expect.poll` gives up after 1 s by default, which a loaded
 * runner can take for one round trip of the event stream.
 */
export const SEEN = { timeout: 20_000 }

/** What the Requests view's details pane says of an open entry the journal no longer holds (`entry`: `#3`). */
export const goneText = (entry: string, why: string): string => `Entry ${entry} is gone: ${why}. Click a row to see its details.`

/**
 * Sends a GET (`send`) that answers 200, waits for its row on top of the Requests table, opens it, and returns its
 * number as the details pane shows it (`#3`).
 */
export async function openNewestRow(page: Page, path: string, send: () => Promise<unknown>): Promise<string> {
  const newest = page.getByRole('table', { name: 'Requests' }).locator('tbody tr').first()
  const details = page.getByRole('region', { name: 'Request details' })
  const text = async (locator: Locator) => (await locator.textContent({ timeout: SEEN.timeout }))?.trim() ?? ''
  await send()
  await expect.poll(() => text(newest.locator('td').nth(2)), SEEN).toBe(path)
  await newest.click()
  await expect.poll(() => text(details), SEEN).toContain(` GET ${path} → 200`)
  return (await text(details)).split(' ')[0] ?? ''
}

/**
 * 'real time' when the clock shown is a moment from `since` to now, else what it shows. Both ends are read on this
 * machine's clock around the page's own reading, so it holds however slow the machine is.
 */
export async function realTimeSince(shownClock: () => Promise<string>, since: number): Promise<string> {
  const shown = await shownClock()
  const at = Date.parse(shown)
  return at >= since && at <= Date.now() ? 'real time' : `${shown}, not between ${new Date(since).toISOString()} and now`
}
