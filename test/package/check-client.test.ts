/**
 * The client report card from a fresh install of the packed tarball, as docs/check-client.md tells a user to try it:
 * `npx petstore-mock check-client -- node node_modules/petstore-mock/examples/clients/<name>.mjs` flags exactly the
 * defect each reference client turns on, and nothing in the correct one or in the shell client.
 */
import { execFile } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { CHECKS } from '../../src/check/catalogue.js'
import { type Consumer, copyConsumer } from './consumer.js'

const run = promisify(execFile)
let consumer: Consumer | undefined

beforeAll(async () => {
  consumer = await copyConsumer('petstore-mock-check-client-')
})
afterAll(async () => {
  if (consumer) await rm(consumer.workDir, { recursive: true, force: true })
})

/** The ids of the checks the card failed, from `--json`; the exit status says the same. */
async function failedChecks(client: string[], only: readonly string[], env: Record<string, string> = {}): Promise<string[]> {
  const project = (consumer as Consumer).project
  const bin = join(project, 'node_modules', '.bin', 'petstore-mock')
  const args = ['check-client', '--json', '--only', only.join(','), '--', ...client]
  const result = await run(bin, args, { cwd: project, timeout: 120_000, env: { ...process.env, ...env } }).catch(
    (error: { stdout: string; code: number }) => error,
  )
  const report = JSON.parse(result.stdout) as { ok: boolean; checks: { id: string; level: string; status: string }[] }
  const failed = report.checks.filter((check) => check.status === 'failed')
  // A recommended check that failed (retry.jitter) is advice: the exit status stays 0 (docs/check-client.md).
  expect('code' in result ? result.code : 0).toBe(failed.some((check) => check.level === 'required') ? 1 : 0)
  return failed.map((check) => check.id)
}

/**
 * The checks judged on the client's real waits (the 20 runs of retry.backoff and retry.jitter) against the rest. A
 * suite on a machine loaded past its cores (two busy loops beside two lanes) is no place to judge waits: each client's
 * defect is looked for among the rest, and the two timed checks are run on the two clients whose verdicts they decide.
 * Their margins against load are measured by `npx tsx bench/card-verdicts.ts` (docs/check-client.md).
 */
const TIMED_CHECKS = ['retry.backoff', 'retry.jitter']
const UNTIMED_CHECKS = CHECKS.map((check) => check.id).filter((id) => !TIMED_CHECKS.includes(id))

const CLIENTS: [string, string[]][] = [
  ['correct', []],
  ['ignores-retry-after', ['rate.retry-after-seconds', 'rate.retry-after-date']],
  ['seconds-only', ['rate.retry-after-date']],
  ['retries-post', ['retry.idempotent-only']],
  ['retries-401', ['auth.no-retry-401']],
]
const script = (name: string) => ['node', `node_modules/petstore-mock/examples/clients/${name}.mjs`]

// A card is tried up to three times (test/http/check-card.test.ts).
it.each(CLIENTS)(
  'flags exactly the defect of examples/clients/%s.mjs among the untimed checks: %j',
  { retry: 2 },
  async (name, expected) => {
    expect(await failedChecks(script(name), UNTIMED_CHECKS)).toEqual(expected)
  },
)

it.each([
  ['correct', []],
  ['no-jitter', ['retry.jitter']],
] as [string, string[]][])('judges the waits of examples/clients/%s.mjs: %j failed', { retry: 2 }, async (name, expected) => {
  // A first wait of 1,000 ms, not 250: far inside the judges' margins on a loaded machine (test/cli/check-client.test.ts).
  expect(await failedChecks(script(name), TIMED_CHECKS, { PET_CLIENT_BASE_DELAY_MS: '1000' })).toEqual(expected)
})

it('passes the shell client (curl in a loop) on every untimed check', { retry: 2 }, async () => {
  expect(await failedChecks(['sh', 'node_modules/petstore-mock/examples/clients/curl-client.sh'], UNTIMED_CHECKS)).toEqual([])
})
