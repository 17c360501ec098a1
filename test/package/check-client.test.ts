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
async function failedChecks(client: string[]): Promise<string[]> {
  const project = (consumer as Consumer).project
  const bin = join(project, 'node_modules', '.bin', 'petstore-mock')
  const result = await run(bin, ['check-client', '--json', '--', ...client], { cwd: project, timeout: 120_000 }).catch(
    (error: { stdout: string; code: number }) => error,
  )
  const report = JSON.parse(result.stdout) as { ok: boolean; checks: { id: string; level: string; status: string }[] }
  const failed = report.checks.filter((check) => check.status === 'failed')
  // A recommended check that failed (retry.jitter) is advice: the exit status stays 0 (docs/check-client.md).
  expect('code' in result ? result.code : 0).toBe(failed.some((check) => check.level === 'required') ? 1 : 0)
  return failed.map((check) => check.id)
}

const CLIENTS: [string, string[]][] = [
  ['correct', []],
  ['ignores-retry-after', ['rate.retry-after-seconds', 'rate.retry-after-date']],
  ['seconds-only', ['rate.retry-after-date']],
  ['retries-post', ['retry.idempotent-only']],
  ['no-jitter', ['retry.jitter']],
  ['retries-401', ['auth.no-retry-401']],
]

// Each verdict rests on the clients' real waits: a card is tried up to three times (test/http/check-card.test.ts).
it.each(CLIENTS)('flags exactly the defect of examples/clients/%s.mjs: %j', { retry: 2 }, async (name, expected) => {
  expect(await failedChecks(['node', `node_modules/petstore-mock/examples/clients/${name}.mjs`])).toEqual(expected)
})

it('passes the shell client (curl in a loop) on every check', { retry: 2 }, async () => {
  expect(await failedChecks(['sh', 'node_modules/petstore-mock/examples/clients/curl-client.sh'])).toEqual([])
})
