/**
 * `petstore-mock/playwright` as a Playwright user runs it (docs/playwright.md): test/playwright/ is a Playwright project
 * importing the package by its name, run by Playwright's own runner in the machine's Chromium, with two workers.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, expect, it } from 'vitest'
import { ensureBuilt, freePort, ROOT } from '../http/support.js'

const run = promisify(execFile)
const CLI = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js')
const CONFIG = join(ROOT, 'test', 'playwright', 'playwright.config.ts')
const SERVER_CONFIG = join(ROOT, 'test', 'playwright-server', 'playwright.config.ts')

interface Result {
  status: string
  attachments: { name: string; contentType: string; body?: string }[]
}
interface Spec {
  title: string
  tests: { results: Result[] }[]
}
interface Suite {
  specs: Spec[]
  suites?: Suite[]
}
interface Report {
  stats: Record<'expected' | 'unexpected' | 'skipped' | 'flaky', number>
  suites: Suite[]
}

/** Runs Playwright's runner over test/playwright/ with a JSON report; resolves with the report (failing runs too). */
async function playwright(args: string[], env: Record<string, string> = {}, config = CONFIG): Promise<Report> {
  const options = { cwd: ROOT, env: { ...process.env, ...env }, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 }
  const output = await run(process.execPath, [CLI, 'test', '--config', config, '--reporter', 'json', ...args], options).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  )
  return JSON.parse(output.stdout) as Report
}

const specsOf = (suites: Suite[]): Spec[] => suites.flatMap((suite) => [...suite.specs, ...specsOf(suite.suites ?? [])])

beforeAll(ensureBuilt)

it("passes the fixture's tests with two workers, docs/playwright.md's first example included", async () => {
  const report = await playwright(['--workers', '2'])
  const titles = specsOf(report.suites).map((spec) => spec.title)
  expect(titles).toContain("one test uses up the Free key's minute in a world of its own")
  expect(titles).toContain("another test uses up the Free key's minute in a world of its own")
  expect(report.stats).toMatchObject({ expected: titles.length, unexpected: 0, skipped: 0, flaky: 0 })
}, 240_000)

it("attaches the world's journal to a test that fails", async () => {
  const report = await playwright(['fails.spec.ts'], { PETSTORE_PLAYWRIGHT_FAIL: '1' })
  const [result] = specsOf(report.suites).flatMap((spec) => spec.tests.flatMap((test) => test.results))
  expect(result?.status).toBe('failed')
  const journal = result?.attachments.find((attachment) => attachment.name === 'petstore-journal.json')
  expect(journal?.contentType).toBe('application/json')
  const entries = JSON.parse(Buffer.from(journal?.body ?? '', 'base64').toString('utf8')) as { path: string; status: number }[]
  expect(entries.map((entry) => [entry.path, entry.status])).toEqual([['/v1/pets', 200]])
}, 240_000)

it("gives each test a session of its own on a shared server, reaching the app's server side and its page", async () => {
  // Playwright's webServer starts the mock and the app (test/playwright-server/) and stops them after the run.
  const env = { PETSTORE_MOCK_PORT: String(await freePort()), PETSTORE_APP_PORT: String(await freePort()) }
  const report = await playwright(['--workers', '2'], env, SERVER_CONFIG)
  const titles = specsOf(report.suites).map((spec) => spec.title)
  expect(titles).toContain('one test uses up the Free key in its own session: the server and the page see 429')
  expect(report.stats).toMatchObject({ expected: titles.length, unexpected: 0, skipped: 0, flaky: 0 })
}, 240_000)

it("holds docs/playwright.md's first example byte for byte", () => {
  const doc = readFileSync(join(ROOT, 'docs', 'playwright.md'), 'utf8')
  const block = /## The first test[\s\S]*?```ts\n([\s\S]*?)```/.exec(doc)?.[1]
  expect(block).toBe(readFileSync(join(ROOT, 'test', 'playwright', 'first.spec.ts'), 'utf8'))
})
