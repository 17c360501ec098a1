/**
 * `petstore-mock verify` with a key that also occurs in the report's field names (regression): `--key e`
 * renamed the report's fields (`checks` became `ch<redacted key>cks`) and printing it crashed with a TypeError and a
 * stack. The target is the mock itself on loopback, knowing that key; each run is bounded by --max-requests.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { closeServers, ensureBuilt, runCli, startServer } from '../http/support.js'

const NO_STACK = /^\s+at .+:\d+:\d+\)?$/m
const FIELDS = ['target', 'passed', 'failed', 'skipped', 'budget', 'checks', 'config', 'conflicts']

beforeAll(ensureBuilt)
afterEach(closeServers)

/** A run of verify with `key` against a mock that knows it. */
async function verifyWith(key: string, ...flags: string[]) {
  const { url } = await startServer({ keys: [{ key, plan: 'pro' }] })
  return runCli(['verify', '--target', `${url}/v1`, '--key', key, '--max-requests', '60', ...flags])
}

describe('verify with a key found in the report field names', () => {
  it('prints the JSON report with its own field names when the key is "e"', async () => {
    const result = await verifyWith('e', '--json')
    expect(result.stderr).not.toMatch(NO_STACK)
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout) as Record<string, unknown> & { checks: Record<string, unknown>[] }
    expect(Object.keys(report)).toEqual(FIELDS)
    expect(Object.keys(report.checks[0] ?? {}).slice(0, 7)).toEqual(['id', 'title', 'spec', 'expected', 'actual', 'ok', 'option'])
  })

  it('prints the table when the key is "checks"', async () => {
    const result = await verifyWith('checks')
    expect(result.stderr).not.toMatch(NO_STACK)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/RESULT\s+CHECK\s+SPEC SAYS\s+TARGET\s+MOCK\s+OPTION TO MATCH/)
    expect(result.stdout).toMatch(/\d+ passed, 0 failed, \d+ skipped; \d+ of 60 requests used\./)
  })
})
