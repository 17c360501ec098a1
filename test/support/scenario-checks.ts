/**
 * Runs the `checks` a scenario file states, against any host reachable with `fetch`: the file
 * itself says what the scenario must do (docs/scenarios.md).
 */
import { expect } from 'vitest'
import type { JournalEntry } from '../../src/journal/journal.js'
import type { ScenarioCheck } from '../../src/scenarios/schema.js'

/** What a check reads of the mock's own record of the request it sent. */
type Recorded = Pick<JournalEntry, 'path' | 'durationMs'>

export interface CheckTarget {
  /** A fetch function and the origin the check paths are relative to. */
  fetch: typeof fetch
  origin: string
  /** Extra headers on every request (e.g. X-Mock-Session). */
  headers?: Record<string, string>
  /**
   * The path a host is mounted under (express `app.use('/api', …)`): the headers that carry a path (`Location`, `Link`)
   * have it in front, as that host adds it (docs/spec-decisions.md row 20a).
   */
  mount?: string
  /**
   * The newest entry of the target's journal: the mock's record of the request a check just sent. `minDurationMs` is
   * read from its `durationMs`, which counts a latency fault's delay exactly, where a time measured here would also
   * count how busy the machine is.
   */
  newestEntry(): Promise<Recorded | undefined>
}

/** A target answered by a world in this process (`petStore.fetch`, or a host in front of the world). */
export function worldTarget(
  world: { journal: { page(filter: object, options: { limit: number }): { entries: Recorded[] } } },
  fetch: typeof globalThis.fetch,
  origin: string,
  mount?: string,
): CheckTarget {
  const target: CheckTarget = { fetch, origin, newestEntry: async () => world.journal.page({}, { limit: 1 }).entries[0] }
  return mount === undefined ? target : { ...target, mount }
}

/** A header's expected value as `target` sends it: a path under its mount, when it has one. */
function mounted(target: CheckTarget, name: string, value: string): string {
  const { mount } = target
  if (mount === undefined) return value
  if (name.toLowerCase() === 'location' && value.startsWith('/')) return `${mount}${value}`
  return name.toLowerCase() === 'link' ? value.replaceAll('</', `<${mount}/`) : value
}

/** A standalone server at `url`, its journal read through `GET /__mock/requests` in the same session. */
export function serverTarget(url: string, headers: Record<string, string> = {}): CheckTarget {
  return {
    fetch,
    origin: url,
    headers,
    async newestEntry() {
      const response = await fetch(`${url}/__mock/requests?limit=1`, { headers })
      return ((await response.json()) as Recorded[])[0]
    },
  }
}

type Outcome = { kind: 'response'; response: Response; text: string } | { kind: 'network-error'; error: unknown } | { kind: 'timeout' }

async function send(check: ScenarioCheck, target: CheckTarget, timeoutMs: number): Promise<Outcome> {
  const { request } = check
  const headers: Record<string, string> = { ...target.headers, ...request.headers }
  if (request.key !== undefined) headers.authorization = `Bearer ${request.key}`
  let body: string | undefined
  if (request.body !== undefined) {
    body = JSON.stringify(request.body)
    headers['content-type'] ??= 'application/json'
  }
  try {
    const response = await target.fetch(`${target.origin}${request.path}`, {
      method: request.method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.text()
    return { kind: 'response', response, text }
  } catch (error) {
    const name = (error as { name?: string }).name
    if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'timeout' }
    return { kind: 'network-error', error }
  }
}

/**
 * Runs every check of a scenario in order, asserting each expectation. A scenario states at least one: a file
 * without checks would pass whatever the mock did.
 */
export async function runScenarioChecks(checks: readonly ScenarioCheck[], target: CheckTarget): Promise<void> {
  expect(checks.length, 'the scenario states no checks: add its expected behaviour to "checks"').toBeGreaterThan(0)
  for (const [index, check] of checks.entries()) {
    const label = `check ${index} (${check.description ?? `${check.request.method} ${check.request.path}`})`
    const { expect: want } = check
    // A timeout check waits for an answer that never comes, so its wait is the check; any other is a ceiling.
    const timeoutMs = want.timeout ? 500 : 30_000
    if (check.repeat !== undefined) {
      const counts: Record<string, number> = {}
      for (let i = 0; i < check.repeat; i++) {
        const outcome = await send(check, target, timeoutMs)
        const key = outcome.kind === 'response' ? String(outcome.response.status) : outcome.kind
        counts[key] = (counts[key] ?? 0) + 1
      }
      for (const [status, [min, max]] of Object.entries(want.statuses ?? {})) {
        expect(counts[status] ?? 0, `${label}: count of ${status} in ${JSON.stringify(counts)}`).toBeGreaterThanOrEqual(min)
        expect(counts[status] ?? 0, `${label}: count of ${status} in ${JSON.stringify(counts)}`).toBeLessThanOrEqual(max)
      }
      continue
    }
    const outcome = await send(check, target, timeoutMs)
    if (want.networkError) {
      expect(outcome.kind, label).toBe('network-error')
      continue
    }
    if (want.timeout) {
      expect(outcome.kind, label).toBe('timeout')
      continue
    }
    expect(outcome.kind, `${label}: ${outcome.kind === 'network-error' ? String((outcome.error as Error).message) : ''}`).toBe('response')
    if (outcome.kind !== 'response') continue
    const { response, text } = outcome
    if (want.status !== undefined) expect(response.status, `${label}: status, body ${text.slice(0, 200)}`).toBe(want.status)
    for (const [name, value] of Object.entries(want.headers ?? {})) {
      if (value === '*') expect(response.headers.has(name), `${label}: header ${name}`).toBe(true)
      else expect(response.headers.get(name), `${label}: header ${name}`).toBe(mounted(target, name, value))
    }
    if (want.minDurationMs !== undefined) {
      const recorded = await target.newestEntry()
      expect(recorded?.path, `${label}: the journal's newest entry`).toBe(new URL(check.request.path, 'http://x').pathname)
      expect(recorded?.durationMs, `${label}: duration the mock recorded`).toBeGreaterThanOrEqual(want.minDurationMs)
    }
    if (want.invalidJson) {
      expect(() => JSON.parse(text), `${label}: body should not be JSON`).toThrow()
      continue
    }
    if (want.body === undefined && want.length === undefined && want.each === undefined) continue
    const json: unknown = JSON.parse(text)
    if (want.body !== undefined) {
      if (typeof want.body === 'object' && want.body !== null) expect(json, `${label}: body`).toMatchObject(want.body as object)
      else expect(json, `${label}: body`).toEqual(want.body)
    }
    if (want.length !== undefined) expect(json, `${label}: length`).toHaveLength(want.length)
    if (want.each !== undefined) for (const item of json as unknown[]) expect(item, `${label}: each`).toMatchObject(want.each)
  }
}
