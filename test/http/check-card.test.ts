/**
 * The client report card in-process (`checkClient`), graded on the reference clients of examples/clients/: the
 * correct one passes every check, and each client with one defect fails exactly the checks that defect breaks.
 * The checks' worlds are real servers on 127.0.0.1, and the clients wait for real: a few seconds per card. The
 * verdicts of the reference clients rest on wall-clock waits, and a machine loaded past its cores runs late the timers
 * of several runs at once (docs/check-client.md, "How the judging works"): those tests try a card up to three times.
 */
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs example without declarations, imported as users of the example would.
import { cardTasks } from '../../examples/clients/pet-client.mjs'
import { CHECKS, type CheckStatus, type ClientTasks, checkClient } from '../../src/check.js'
import '../../src/vitest.js'

/** For the tests whose verdict rests on the clients' real waits. */
const TIMED = { retry: 2 }

const tasksWith = (defects: Record<string, boolean>): ClientTasks => cardTasks({ defects }) as ClientTasks
const statuses = (report: { checks: readonly { id: string; status: CheckStatus }[] }) =>
  Object.fromEntries(report.checks.map((result) => [result.id, result.status]))
const failedOf = (report: { checks: readonly { id: string; status: CheckStatus }[] }) =>
  report.checks.filter((result) => result.status === 'failed').map((result) => result.id)

describe('checkClient on the reference clients', () => {
  it('passes the correct client on every check, none left not applicable', TIMED, async () => {
    const report = await checkClient(tasksWith({}))
    expect(statuses(report)).toEqual(Object.fromEntries(CHECKS.map((check) => [check.id, 'passed'])))
    expect(report.ok).toBe(true)
    expect(report).toPassClientChecks()
  })

  const DEFECTS: [string, string[]][] = [
    ['ignoreRetryAfter', ['rate.retry-after-seconds', 'rate.retry-after-date']],
    ['secondsOnly', ['rate.retry-after-date']],
    ['retryPost', ['retry.idempotent-only']],
    ['retry401', ['auth.no-retry-401']],
  ]
  it.each(DEFECTS)('flags exactly the defect %s: %j', TIMED, async (defect, checks) => {
    const report = await checkClient(tasksWith({ [defect]: true }))
    expect(failedOf(report)).toEqual(checks)
    expect(report.ok).toBe(false)
    expect(() => expect(report).toPassClientChecks()).toThrow(checks[0])
  })
})

describe('checkClient on a client without jitter', () => {
  it('fails retry.jitter alone, a recommended check: the report stays ok and toPassClientChecks passes', TIMED, async () => {
    const report = await checkClient(tasksWith({ noJitter: true }))
    expect(failedOf(report)).toEqual(['retry.jitter'])
    expect(report.checks.find((result) => result.id === 'retry.jitter')?.level).toBe('recommended')
    expect(report.ok).toBe(true)
    expect(report).toPassClientChecks()
  })
})

describe('checkClient on hand-written clients', () => {
  const list =
    (init: (input: { baseUrl: string; key: string }) => [string, RequestInit]) => async (input: { baseUrl: string; key: string }) => {
      const [url, options] = init(input)
      const response = await fetch(url, options)
      if (!response.ok) throw new Error(`${response.status}`)
      return response.json()
    }
  const never = () => Promise.reject(new Error('not this task'))

  it('fails auth.bearer for a client that also sends the key in the query, with the request as evidence', async () => {
    const listPets = list(({ baseUrl, key }) => [`${baseUrl}/pets?api_key=${key}`, { headers: { authorization: `Bearer ${key}` } }])
    const report = await checkClient({ listPets, getPet: never, createPet: never }, { only: ['auth.bearer'] })
    const [result] = report.checks
    expect(result?.status).toBe('failed')
    expect(result?.reason).toBe('Request #1 also sent a credential in the query.')
    expect(result?.evidence[0]).toMatch(/^\+0\.000 s GET \/v1\/pets\?api_key=\S+ -> 200$/)
    expect(result?.fix).toBe('Send the key only as "Authorization: Bearer <key>".')
  })

  it('fails auth.bearer for a client that sends another scheme', async () => {
    const listPets = list(({ baseUrl, key }) => [`${baseUrl}/pets`, { headers: { authorization: `Token ${key}` } }])
    const report = await checkClient({ listPets, getPet: never, createPet: never }, { only: ['auth.bearer'] })
    expect(report.checks[0]?.reason).toBe('Request #1 sent Authorization: Token …0001.')
  })

  it('fails timeout.gives-up for a client that waits forever, stopped at the limit', async () => {
    const listPets = ({ baseUrl, key }: { baseUrl: string; key: string }) =>
      fetch(`${baseUrl}/pets`, { headers: { authorization: `Bearer ${key}` } }).catch(() => undefined)
    const report = await checkClient({ listPets, getPet: never, createPet: never }, { only: ['timeout.gives-up'], limitMs: 1_500 })
    expect(report.checks[0]?.status).toBe('failed')
    expect(report.checks[0]?.evidence.at(-1)).toMatch(/^the task was still running at the check's limit \(1\.[5-9] s\) and was stopped$/)
  })

  it("says a check does not apply when the client's call sends nothing, and a card that passed nothing is not ok", async () => {
    const report = await checkClient(
      { listPets: async () => [], getPet: async () => ({}), createPet: async () => ({}) },
      { only: ['rate.retry-after-seconds', 'retry.backoff', 'lifecycle.after-sunset'] },
    )
    expect(statuses(report)).toEqual({
      'rate.retry-after-seconds': 'not-applicable',
      'retry.backoff': 'not-applicable',
      'lifecycle.after-sunset': 'not-applicable',
    })
    // Nothing passed: a client that makes no call certifies nothing (docs/check-client.md, the exit status).
    expect(report.ok).toBe(false)
  })

  it('refuses an unknown check id, naming the known ones', async () => {
    await expect(checkClient({ listPets: never, getPet: never, createPet: never }, { only: ['rate.nope'] })).rejects.toThrow(
      /^Unknown check rate\.nope: the checks are auth\.bearer, auth\.no-retry-401, /,
    )
  })
})
