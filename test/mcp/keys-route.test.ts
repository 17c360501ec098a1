/**
 * `POST /__mock/keys/{key}`, the admin request behind `exhaust_quota` and `ban_key` (docs/server.md, "Admin API"): the
 * fields of a scenario's `keys.start`, what the body leaves out keeping the key's current use, a 400 naming the fix.
 * @see ../shared/spec/pet-store-service.md "Rate limits by plan", "Exceeding the limit"
 */
import { afterEach, expect, it } from 'vitest'
import { auth, closeServers, startServer } from '../http/support.js'

afterEach(closeServers)

const setKey = (url: string, key: string, body: unknown) =>
  fetch(`${url}/__mock/keys/${key}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) })

interface KeyView {
  key: string
  minuteRemaining: number
  dayRemaining: number
  bannedUntil: string | null
}
const keyOf = async (response: Response, key: string) => ((await response.json()) as KeyView[]).find((one) => one.key === key) as KeyView

// The real clock's minute may end between the requests and the ban: then the count starts again.
it('uses up a window, bans and lifts a ban, keeping what the body leaves out', { retry: 2 }, async () => {
  const { url } = await startServer()
  for (let i = 0; i < 3; i++) await fetch(`${url}/v1/pets`, { headers: auth('test-pro') })
  const banned = await keyOf(await setKey(url, 'test-pro', { bannedForSeconds: 30 }), 'test-pro')
  expect(banned.minuteRemaining).toBe(297)
  expect(banned.bannedUntil).not.toBeNull()
  expect((await fetch(`${url}/v1/pets`, { headers: auth('test-pro') })).status).toBe(429)
  const lifted = await keyOf(await setKey(url, 'test-pro', { bannedForSeconds: 0 }), 'test-pro')
  expect(lifted.bannedUntil).toBeNull()
  const day = await keyOf(await setKey(url, 'test-pro', { dayUsed: 'all' }), 'test-pro')
  expect(day.dayRemaining).toBe(0)
  const limited = await fetch(`${url}/v1/pets`, { headers: auth('test-pro') })
  expect(limited.status).toBe(429)
  expect(limited.headers.get('retry-after')).not.toBeNull()
})

it.each([
  ['an unknown key', 'nope', { minuteUsed: 'all' }, /Known keys: test-free/],
  ['an unknown field', 'test-free', { minuteUsd: 'all' }, /Unknown field "minuteUsd"/],
  ['a bad count', 'test-free', { minuteUsed: -1 }, /"minuteUsed" must be a whole number/],
  ['a bad ban', 'test-free', { bannedForSeconds: 'long' }, /"bannedForSeconds" must be a number/],
  ['a body that is not JSON', 'test-free', '{', /not valid JSON/],
])('answers %s with a 400 naming the fix, changing nothing', async (_what, key, body, message) => {
  const { url } = await startServer()
  // What is left and the bans: the resets follow the real clock, which may pass a minute's end meanwhile.
  const left = async () =>
    ((await (await fetch(`${url}/__mock/keys`)).json()) as KeyView[]).map(({ key, minuteRemaining, dayRemaining, bannedUntil }) => ({
      key,
      minuteRemaining,
      dayRemaining,
      bannedUntil,
    }))
  const before = await left()
  const response = await setKey(url, key, body)
  expect(response.status).toBe(400)
  expect(((await response.json()) as { message: string }).message).toMatch(message)
  expect(await left()).toEqual(before)
})
