/**
 * Waiting for what a page shows, in the panel's browser tests: ceilings for a busy machine, never budgets.
 *
 * @example
 * await expect.poll(() => requestSummary(page), SEEN).toEqual(['GET /v1/pets 200 free'])
 * await expect.poll(() => realTimeSince(() => clockText(page), clicked), SEEN).toBe('real time')
 */

/**
 * How long a change may take to show in a page. vitest's `expect.poll` gives up after 1 s by default, which a loaded
 * runner can take for one round trip of the event stream.
 */
export const SEEN = { timeout: 20_000 }

/**
 * 'real time' when the clock shown is a moment from `since` to now, else what it shows. Both ends are read on this
 * machine's clock around the page's own reading, so it holds however slow the machine is.
 */
export async function realTimeSince(shownClock: () => Promise<string>, since: number): Promise<string> {
  const shown = await shownClock()
  const at = Date.parse(shown)
  return at >= since && at <= Date.now() ? 'real time' : `${shown}, not between ${new Date(since).toISOString()} and now`
}
