/**
 * Runs the `checks` a scenario file states, against any host reachable with `fetch`: the file
 * itself says what the scenario must do (issue #5).
 */
import { expect } from 'vitest'
import type { ScenarioCheck } from '../../src/scenarios/schema.js'

export interface CheckTarget {
  /** A fetch function and the origin the check paths are relative to. */
  fetch: typeof fetch
  origin: string
  /** Extra headers on every request (e.g. X-Mock-Session). */
  headers?: Record<string, string>
}

type Outcome =
  | { kind: 'response'; response: Response; text: string; ms: number }
  | { kind: 'network-error'; error: unknown; ms: number }
  | { kind: 'timeout'; ms: number }

async function send(check: ScenarioCheck, target: CheckTarget, timeoutMs: number): Promise<Outcome> {
  const { request } = check
  const headers: Record<string, string> = { ...target.headers, ...request.headers }
  if (request.key !== undefined) headers.authorization = `Bearer ${request.key}`
  let body: string | undefined
  if (request.body !== undefined) {
    body = JSON.stringify(request.body)
    headers['content-type'] ??= 'application/json'
  }
  const started = performance.now()
  try {
    const response = await target.fetch(`${target.origin}${request.path}`, {
      method: request.method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.text()
    return { kind: 'response', response, text, ms: performance.now() - started }
  } catch (error) {
    const ms = performance.now() - started
    const name = (error as { name?: string }).name
    if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'timeout', ms }
    return { kind: 'network-error', error, ms }
  }
}

/** Runs every check of a scenario in order, asserting each expectation. */
export async function runScenarioChecks(checks: readonly ScenarioCheck[], target: CheckTarget): Promise<void> {
  for (const [index, check] of checks.entries()) {
    const label = `check ${index} (${check.description ?? `${check.request.method} ${check.request.path}`})`
    const { expect: want } = check
    const timeoutMs = want.timeout ? 500 : 10_000
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
      else expect(response.headers.get(name), `${label}: header ${name}`).toBe(value)
    }
    if (want.minDurationMs !== undefined) expect(outcome.ms, `${label}: duration`).toBeGreaterThanOrEqual(want.minDurationMs)
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
