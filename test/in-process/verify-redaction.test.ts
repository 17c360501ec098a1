/**
 * `verify` redacts the API key in the report's values, never in its own field names: a key that also occurs in a
 * field name (`e`, `k`, `checks`) renamed the report's fields, and printing it threw a TypeError (regression).
 * The target is an in-process mock reached through its `fetch`, echoing the key in a `Link` header as a careless
 * service might; each run sends about 40 requests, none over a network.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { formatJson, formatTable, type VerifyReport, verify } from '../../src/verify/index.js'

const REPORT_FIELDS = ['target', 'passed', 'failed', 'skipped', 'budget', 'checks', 'config', 'conflicts']
const CHECK_FIELDS = ['id', 'kind', 'title', 'spec', 'expected', 'actual', 'ok', 'option', 'skipped']
const BUDGET_FIELDS = ['max', 'planned', 'used']

/** A key made of characters a Bearer token may hold (printable ASCII, no space). */
const anyKey = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
  minLength: 1,
  maxLength: 12,
})
/** A part of one of the report's field names: `e`, `ck`, `checks`, `dget`... */
const fieldPart = fc
  .constantFrom(...REPORT_FIELDS, ...CHECK_FIELDS, ...BUDGET_FIELDS)
  .chain((name) =>
    fc
      .tuple(fc.nat({ max: name.length - 1 }), fc.integer({ min: 1, max: name.length }))
      .map(([start, length]) => name.slice(start, start + length)),
  )

/** The report of a run against a mock that knows `key` and echoes it in a header of every answer. */
async function reportFor(key: string): Promise<VerifyReport> {
  const store = createPetStore({ keys: [{ key, plan: 'pro' }], collection: false })
  const echoing: typeof fetch = async (input, init) => {
    const response = await store.fetch(input as string, init)
    const headers = new Headers(response.headers)
    headers.set('link', `<https://example.test/?k=${encodeURIComponent(key)}>; k=${key}`)
    return new Response(await response.arrayBuffer(), { status: response.status, headers })
  }
  return verify({ target: 'http://target.test/v1', key, fetch: echoing, allowWrites: true })
}

/** Every string in `value` (field names left out). */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(stringsOf)
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsOf)
  return []
}

describe('the key in verify reports', () => {
  it('is replaced in values, never in the fields, for random keys and parts of the field names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fieldPart, anyKey), async (key) => {
        const report = await reportFor(key)
        expect(Object.keys(report)).toEqual(REPORT_FIELDS)
        expect(Object.keys(report.budget)).toEqual(BUDGET_FIELDS)
        expect(report.checks.length).toBeGreaterThan(30)
        for (const check of report.checks) expect(CHECK_FIELDS).toEqual(expect.arrayContaining(Object.keys(check)))
        expect(stringsOf(report).filter((text) => text.includes(key))).toEqual([])
        expect(Object.keys(JSON.parse(formatJson(report)))).toEqual(REPORT_FIELDS)
        expect(formatTable(report)).toContain(`requests used.`)
      }),
      { numRuns: 60 },
    )
  })

  it('is replaced where the target echoes it', async () => {
    const report = await reportFor('sk-echoed-0042')
    const link = report.checks.find((check) => check.id === 'get.deprecation-headers')
    expect(link?.actual).toContain('<redacted key>')
    expect(JSON.stringify(report)).not.toContain('sk-echoed-0042')
  })
})
