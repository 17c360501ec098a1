/**
 * `petstore-mock/playwright` as a Playwright user runs it (docs/playwright.md): test/playwright/ is a Playwright project
 * importing the package by its name, run once by Playwright's own runner in the machine's Chromium with two workers:
 * its `in-page` project (worlds in the test's process, one test failing on purpose) and its `server` project (sessions
 * on the standalone server, reached by the page and an app's server side). docs/playwright.md's first example runs in a
 * fresh project of its own, in the ecosystem lane (scripts/ecosystem-lane.mjs).
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, expect, it } from 'vitest'
import { ensureBuilt, freePort, ROOT } from '../http/support.js'

const run = promisify(execFile)
const CLI = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js')
const CONFIG = join(ROOT, 'test', 'playwright', 'playwright.config.ts')

interface Result {
  status: string
  attachments: { name: string; contentType: string; body?: string }[]
}
interface Spec {
  title: string
  file: string
  tests: { projectName: string; results: Result[] }[]
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
async function playwright(args: string[], env: Record<string, string>): Promise<Report> {
  const options = { cwd: ROOT, env: { ...process.env, ...env }, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 }
  const output = await run(process.execPath, [CLI, 'test', '--config', CONFIG, '--reporter', 'json', ...args], options).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  )
  return JSON.parse(output.stdout) as Report
}

const specsOf = (suites: Suite[]): Spec[] => suites.flatMap((suite) => [...suite.specs, ...specsOf(suite.suites ?? [])])

let report: Report
let specs: Spec[]
const statusesOf = (file: string) =>
  specs.filter((spec) => spec.file === file).flatMap((spec) => spec.tests.flatMap((t) => t.results.map((r) => r.status)))

beforeAll(async () => {
  await ensureBuilt()
  // One run for every case (each run starts Chromium and the web servers): fails.spec.ts fails on purpose.
  const env = { PETSTORE_PLAYWRIGHT_FAIL: '1', PETSTORE_MOCK_PORT: String(await freePort()), PETSTORE_APP_PORT: String(await freePort()) }
  report = await playwright(['--workers', '2'], env)
  specs = specsOf(report.suites)
}, 300_000)

it('passes the in-page tests with two workers, two of them using up the same key side by side', () => {
  const titles = specs.filter((spec) => spec.file === 'pets.spec.ts').map((spec) => spec.title)
  expect(titles).toContain("exhausting the Free key's minute in one test leaves every other test's world alone")
  expect(titles).toContain("exhausting the Free key's minute in another test leaves every other test's world alone")
  expect(statusesOf('pets.spec.ts')).toEqual(titles.map(() => 'passed'))
})

it("attaches the world's journal to a test that fails", () => {
  const [result] = specs.filter((spec) => spec.file === 'fails.spec.ts').flatMap((spec) => spec.tests.flatMap((test) => test.results))
  expect(result?.status).toBe('failed')
  const journal = result?.attachments.find((attachment) => attachment.name === 'petstore-journal.json')
  expect(journal?.contentType).toBe('application/json')
  const entries = JSON.parse(Buffer.from(journal?.body ?? '', 'base64').toString('utf8')) as { path: string; status: number }[]
  expect(entries.map((entry) => [entry.path, entry.status])).toEqual([['/v1/pets', 200]])
  // The one failure of the run is that test's.
  expect(report.stats).toMatchObject({ unexpected: 1, skipped: 0, flaky: 0 })
})

it("gives each test a session of its own on a shared server, reaching the app's server side and its page", () => {
  const titles = specs.filter((spec) => spec.file === 'server.spec.ts').map((spec) => spec.title)
  expect(titles).toContain('one test uses up the Free key in its own session: the server and the page see 429')
  expect(statusesOf('server.spec.ts')).toEqual(titles.map(() => 'passed'))
})
