/**
 * The shipped Postman collection, run by newman against the standalone server as QA's CI runs it (the server
 * started in this process; the CLI as a process is tested in test/cli/): every assertion passes on a default server, every folder runs, the run leaves its session reset and
 * other sessions untouched, and a server that answers differently makes the collection fail.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import newman, { type NewmanRunExecution, type NewmanRunFailure, type NewmanRunSummary } from 'newman'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLAN_LIMITS } from '../../src/spec.js'
import { closeServers, ROOT, startServer } from './support.js'

const COLLECTION = join(ROOT, 'postman', 'petstore-mock.postman_collection.json')

/** The collection's folders and how many requests each holds. */
const folders = (JSON.parse(readFileSync(COLLECTION, 'utf8')) as { item: { name: string; item: unknown[] }[] }).item

/** "Use up the free key's minute" is sent again until the minute is used up: once per request of the Free plan's minute. */
const LOOP_REPEATS = PLAN_LIMITS.free.perMinute - 1

/** Runs the whole collection against `baseUrl`, with no reporter; the run is bounded to 60 s, each request to 10 s. */
function runCollection(baseUrl: string): Promise<NewmanRunSummary> {
  return new Promise((done, fail) => {
    newman.run(
      { collection: COLLECTION, envVar: [{ key: 'baseUrl', value: baseUrl }], reporters: [], timeout: 60_000, timeoutRequest: 10_000 },
      (error, summary) => (error ? fail(error) : done(summary)),
    )
  })
}

/** `Folder / request: assertion (message)`, for each failed assertion or script of a run. */
function failuresOf(summary: NewmanRunSummary): string[] {
  return summary.run.failures.map((failure: NewmanRunFailure) => {
    const where = `${failure.parent?.name ?? '?'} / ${failure.source?.name ?? '?'}`
    return `${where}: ${failure.error.test ?? failure.error.name} (${failure.error.message})`
  })
}

/** The folder an executed request belongs to. */
const folderOf = (execution: NewmanRunExecution): string => (execution.item as unknown as { parent(): { name: string } }).parent().name

afterAll(closeServers)

describe('the Postman collection against a default server', () => {
  let url = ''
  let summary: NewmanRunSummary

  beforeAll(async () => {
    url = (await startServer({ seed: 1 })).url
    summary = await runCollection(url)
  })

  it('passes every assertion', () => {
    expect(failuresOf(summary)).toEqual([])
    expect(summary.run.stats.assertions.failed).toBe(0)
    expect(summary.run.stats.assertions.total).toBeGreaterThan(100)
  })

  it('runs every request of every folder, the rate-limit loop until the Free minute is used up', () => {
    const ran = new Map<string, number>()
    for (const execution of summary.run.executions) ran.set(folderOf(execution), (ran.get(folderOf(execution)) ?? 0) + 1)
    const expected = folders.map((folder) => [folder.name, folder.item.length + (folder.name === 'Errors' ? LOOP_REPEATS : 0)])
    expect([...ran]).toEqual(expected)
    expect(folders.map((folder) => folder.name)).toEqual(['Pets', 'Errors', 'Admin'])
    expect(summary.run.stats.requests.failed).toBe(0)
  })

  /** Reads an admin path of the server the collection ran against, in `session` or the default one. */
  const read = async (path: string, session?: string) =>
    (await fetch(`${url}${path}`, { headers: session ? { 'x-mock-session': session } : {} })).json()

  it('leaves its session reset', async () => {
    expect(await read('/__mock/requests', 'postman')).toEqual([])
    expect(await read('/__mock/clock', 'postman')).toMatchObject({ frozen: false, offsetMs: 0 })
    const keys = (await read('/__mock/keys', 'postman')) as { minuteRemaining: number; perMinute: number }[]
    expect(keys.every((key) => key.minuteRemaining === key.perMinute)).toBe(true)
    expect(await read('/__mock/sessions')).toContain('postman')
  })

  it('leaves the default session untouched', async () => {
    expect(await read('/__mock/requests')).toEqual([])
  })
})

it('fails where the server answers otherwise: Retry-After as an HTTP-date', async () => {
  const { url } = await startServer({ rateLimit: { retryAfterFormat: 'http-date' } })
  const summary = await runCollection(url)
  expect(failuresOf(summary).map((failure) => failure.replace(/ \(.*\)$/s, ''))).toEqual([
    'Errors / 429 once the minute is used up: Retry-After is a whole number of seconds',
    'Admin / Rate-limited: the first request is 429: 429 rate_limited with a numeric Retry-After within the minute',
  ])
})
