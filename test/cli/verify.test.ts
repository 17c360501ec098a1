/**
 * `petstore-mock verify` (docs/verify.md): black-box checks of a deployment, run as a user runs them (the built CLI)
 * against the mock itself, the mock under other options, a small drifting server written here, and Prism; plus the
 * report building on its own. Loopback only; every run is bounded by --max-requests and takes a few seconds at most.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from '../../src/openapi.js'
import { applyPatch, mergePatches } from '../../src/verify/config.js'
import { pageOf, retryAfterFormat, underBase } from '../../src/verify/describe.js'
import { type CheckResult, formatJson, formatTable, type VerifyReport, verify } from '../../src/verify/index.js'
import { redact } from '../../src/verify/report.js'
import { closeServers, ensureBuilt, PROCESS_CEILING_MS, ROOT, runCli, startServer } from '../http/support.js'

interface JsonReport {
  target: string
  passed: number
  failed: number
  skipped: number
  budget: { max: number; planned: number; used: number }
  checks: { id: string; title: string; spec: string; expected: string; actual: string; ok: boolean | null; option: string | null }[]
  config: Record<string, unknown>
}

let dir = ''
beforeAll(async () => {
  await ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'petstore-verify-'))
})
afterEach(closeServers)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const QUOTA = ['--free-key', 'test-free', '--allow-quota', '--max-wait', '0']
const check = (report: JsonReport, id: string) => {
  const found = report.checks.find((c) => c.id === id)
  if (!found) throw new Error(`No check ${id} in the report: ${report.checks.map((c) => c.id).join(', ')}`)
  return found
}
const parse = (stdout: string): JsonReport => JSON.parse(stdout) as JsonReport
/** No stack trace: lines like "    at run (file.js:1:2)". */
const NO_STACK = /^\s+at .+:\d+:\d+\)?$/m

describe('verify against the mock itself', () => {
  it('passes every check it runs against the mock with --allow-writes, --allow-quota, --allow-ban, exiting 0', async () => {
    // The target runs on real time, as verify expects of a deployment: when a minute turns between the quota checks and
    // the ban check, the ban check exhausts the free key a second time, which the default budget of 200 does not hold
    // (it was skipped then): a budget for two exhaustions gives the same verdict at any second of the minute.
    const { url } = await startServer()
    const result = await runCli([
      'verify',
      '--target',
      `${url}/v1`,
      '--key',
      'test-pro',
      '--allow-writes',
      ...QUOTA,
      '--allow-ban',
      '--max-requests',
      '300',
      '--json',
    ])
    expect(result.stderr).toMatch(/request budget 300 \(--max-requests\)/)
    const report = parse(result.stdout)
    expect(report.checks.filter((c) => c.ok === false)).toEqual([])
    expect(result.code).toBe(0)
    expect(report.target).toBe(`${url}/v1`)
    expect(report.passed).toBeGreaterThanOrEqual(30)
    // Retry-After (up to a minute) is over --max-wait 0: the check that waits, and the one reading its answer, are
    // skipped, never waited for in a test.
    expect(report.checks.filter((c) => c.ok === null).map((c) => c.id)).toEqual(['rate.retry-after-honoured', 'rate.429-uncounted'])
    for (const id of ['list.order', 'create.charset-encoding', 'rate.counting-400']) expect(check(report, id).ok, id).toBe(true)
    expect(check(report, 'rate.counting-400').actual).toBe('a 400 counts (X-RateLimit-Remaining down by one)')
    // The budget printed first holds every request sent.
    expect(report.budget.used).toBeLessThanOrEqual(report.budget.planned)
    expect(result.stderr).toContain(`this run plans at most ${report.budget.planned}.`)
    for (const c of report.checks) {
      expect(Object.keys(c).slice(0, 7)).toEqual(['id', 'title', 'spec', 'expected', 'actual', 'ok', 'option'])
      expect(c.option).toBeNull()
    }
    expect(report.passed + report.failed + report.skipped).toBe(report.checks.length)
  })

  /** Verifies a fresh mock with the default options: no writes, no quota checks, a table. */
  const verifyByDefault = async () => {
    const { url, server } = await startServer()
    const result = await runCli(['verify', '--target', `${url}/v1`, '--key', 'test-pro'])
    return { result, server }
  }

  it('prints the budget first, then a table', async () => {
    const { result } = await verifyByDefault()
    expect(result.code).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines[0]).toMatch(
      /^petstore-mock verify: http:\/\/127\.0\.0\.1:\d+\/v1, request budget 200 \(--max-requests\); this run plans at most \d+\./,
    )
    expect(result.stdout).toMatch(/RESULT\s+CHECK\s+SPEC SAYS\s+TARGET\s+MOCK\s+OPTION TO MATCH/)
    expect(result.stdout).toMatch(/^skip\s+create\.ok/m)
    expect(result.stdout).toMatch(/, 0 failed, \d+ skipped; \d+ of 200 requests used\./)
  })

  it('sends no write by default', async () => {
    const { server } = await verifyByDefault()
    const posts = server.sessions.main.journal.find({ method: 'POST' })
    expect(posts).toEqual([])
  })
})

describe('verify against the mock under other options', () => {
  /** Verifies a mock started under other options, writing the options found to a file with --write-config. */
  const verifyOtherOptions = async () => {
    const { url } = await startServer({
      queryValidation: 'lenient',
      defaultStatus: 'available',
      mediaTypeErrorStatus: 415,
      rateLimit: { retryAfterFormat: 'http-date', unauthenticatedHeaders: 'omit' },
    })
    const file = join(dir, 'found.json')
    const args = ['verify', '--target', `${url}/v1`, '--key', 'test-pro', '--allow-writes', ...QUOTA, '--json']
    const first = await runCli([...args, '--write-config', file])
    return { args, file, first }
  }

  it('names the option that makes the mock answer like the target for each difference, exiting 1', async () => {
    const { first } = await verifyOtherOptions()
    expect(first.code).toBe(1)
    const report = parse(first.stdout)
    expect(check(report, 'query.limit-out-of-range')).toMatchObject({ ok: false, option: 'queryValidation: "lenient"' })
    expect(check(report, 'query.status-unknown')).toMatchObject({ ok: false, option: 'queryValidation: "lenient"' })
    expect(check(report, 'create.default-status')).toMatchObject({ ok: false, option: 'defaultStatus: "available"' })
    expect(check(report, 'create.missing-content-type')).toMatchObject({ ok: false, option: 'mediaTypeErrorStatus: 415' })
    expect(check(report, 'create.charset-encoding')).toMatchObject({ ok: false, option: 'mediaTypeErrorStatus: 415' })
    expect(check(report, 'rate.retry-after-format')).toMatchObject({ ok: false, option: 'rateLimit.retryAfterFormat: "http-date"' })
    expect(check(report, 'rate.unauthenticated-headers')).toMatchObject({ ok: false, option: 'rateLimit.unauthenticatedHeaders: "omit"' })
    expect(report.checks.filter((c) => c.ok === false && c.option === null)).toEqual([])
  })

  it('writes the options it found to the file named by --write-config', async () => {
    const { file } = await verifyOtherOptions()
    const written = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
    expect(written).toEqual({
      $schema: './node_modules/petstore-mock/config.schema.json',
      queryValidation: 'lenient',
      defaultStatus: 'available',
      mediaTypeErrorStatus: 415,
      rateLimit: { retryAfterFormat: 'http-date', unauthenticatedHeaders: 'omit' },
    })
  })

  it('passes with --config of the file it wrote', async () => {
    const { args, file } = await verifyOtherOptions()
    const again = await runCli([...args, '--config', file])
    expect(parse(again.stdout).checks.filter((c) => c.ok === false)).toEqual([])
    expect(again.code).toBe(0)
  })

  /** Verifies a mock with a deprecation date against a config file of its own keys, writing what it found. */
  const verifyDeprecatedOverBase = async () => {
    const { url } = await startServer({ deprecatedAt: '2025-06-01T00:00:00Z', seed: 3 })
    const base = join(dir, 'base.json')
    await writeFile(base, JSON.stringify({ seed: 3, pets: 50, log: 'silent' }))
    const file = join(dir, 'with-base.json')
    const result = await runCli(['verify', '--target', `${url}/v1`, '--key', 'test-pro', '--config', base, '--write-config', file])
    return { url, file, result }
  }

  it('finds the deprecation date of a target, exiting 1', async () => {
    const { result } = await verifyDeprecatedOverBase()
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('deprecatedAt: "2025-06-01T00:00:00Z"')
  })

  it("keeps the verified config file's own keys in the file it writes", async () => {
    const { file } = await verifyDeprecatedOverBase()
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ seed: 3, pets: 50, log: 'silent', deprecatedAt: '2025-06-01T00:00:00Z' })
  })

  it('passes with --config of the file it wrote over a config of its own', async () => {
    const { url, file } = await verifyDeprecatedOverBase()
    expect((await runCli(['verify', '--target', `${url}/v1`, '--key', 'test-pro', '--config', file])).code).toBe(0)
  })
})

/** Keys of the drifting server. The main key is echoed back in a header, to prove the report redacts it. */
const DRIFT_KEY = 'drift-secret-key-0001'
const DRIFT_FREE = 'drift-free-key-0002'

/**
 * A small Pet Store that drifts from the mock: a lenient query, 415 for a missing content type, another charset or
 * a Content-Encoding, "available" by default, no rate-limit headers on a 401, Retry-After as a date, 400 for a petId
 * that is not an integer, no quota used by a 400, no deprecation headers, and a text 404 for other paths (against the
 * spec's Error body).
 */
function driftHandler(pets: { id: number; name: string; categoryId: number; status: string }[]) {
  const windows = new Map<string, { start: number; count: number }>()
  return (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? '/', 'http://drift')
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers })
      response.end(request.method === 'HEAD' ? undefined : JSON.stringify(payload))
    }
    const error = (status: number, headers: Record<string, string> = {}) =>
      send(status, { code: `e${status}`, message: 'drift', status }, headers)
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
    if (token !== DRIFT_KEY && token !== DRIFT_FREE) return error(401)
    const now = Date.now()
    const start = now - (now % 60_000)
    const window = windows.get(token)?.start === start ? (windows.get(token) as { start: number; count: number }) : { start, count: 0 }
    windows.set(token, window)
    const limit = token === DRIFT_FREE ? 60 : 300
    const reset = String((start + 60_000) / 1000)
    if (window.count >= limit) {
      const retry = new Date(start + 60_000).toUTCString()
      return error(429, {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': reset,
        'retry-after': retry,
      })
    }
    window.count += 1
    const rate = { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(limit - window.count), 'x-ratelimit-reset': reset }
    // A 400 gives its request back: it uses no quota.
    const badRequest = () => {
      window.count -= 1
      return error(400, { ...rate, 'x-ratelimit-remaining': String(limit - window.count) })
    }
    const path = url.pathname
    if (path === '/v1/pets' && (request.method === 'GET' || request.method === 'HEAD')) {
      const raw = Number.parseInt(url.searchParams.get('limit') ?? '20', 10)
      const size = Number.isNaN(raw) ? 20 : Math.min(100, Math.max(1, raw))
      const status = url.searchParams.get('status')
      return send(200, pets.filter((p) => status === null || p.status === status).slice(0, size), rate)
    }
    if (path === '/v1/pets' && request.method === 'POST') {
      const type = request.headers['content-type']
      const charset = /charset=([^;]+)/i
        .exec(type ?? '')?.[1]
        ?.trim()
        .toLowerCase()
      if (type === undefined || (charset !== undefined && charset !== 'utf-8') || request.headers['content-encoding'] !== undefined)
        return error(415, rate)
      const pet = JSON.parse(body || '{}') as { name?: unknown; categoryId?: unknown; status?: string }
      if (typeof pet.name !== 'string' || typeof pet.categoryId !== 'number') return badRequest()
      const created = { id: pets.length + 1, name: pet.name, categoryId: pet.categoryId, status: pet.status ?? 'available' }
      pets.push(created)
      return send(201, created, { ...rate, location: `/v1/pets/${created.id}` })
    }
    const id = /^\/v1\/pets\/([^/]+)$/.exec(path)?.[1]
    if (id !== undefined && request.method !== 'GET' && request.method !== 'HEAD') return error(405, { ...rate, allow: 'GET, HEAD' })
    if (id !== undefined && !/^\d+$/.test(id)) return badRequest()
    if (id !== undefined) {
      const pet = pets.find((p) => String(p.id) === id)
      return pet ? send(200, pet, { ...rate, link: `</v1/pets?key=${token}>; rel="successor-version"` }) : error(404, rate)
    }
    if (path === '/v1/store/orders') return send(200, [], rate)
    response.writeHead(404, { 'content-type': 'text/plain', ...rate })
    response.end('Not Found')
  }
}

async function startDrift(): Promise<{ url: string; close: () => Promise<void> }> {
  const statuses = ['available', 'pending', 'sold']
  const pets = Array.from({ length: 30 }, (_, i) => ({
    id: i + 1,
    name: `Pet ${i + 1}`,
    categoryId: 1 + (i % 4),
    status: statuses[i % 3] as string,
  }))
  const handle = driftHandler(pets)
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      body += chunk
    })
    request.on('end', () => handle(request, response, body))
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((done) => server.close(() => done())),
  }
}

describe('verify against a drifting server', () => {
  type Run = Awaited<ReturnType<typeof runCli>>
  let result: Run
  let table: Run
  let report: JsonReport

  // One drifting server and two runs of it (--json, then the table), shared by the tests below, which only read them.
  beforeAll(async () => {
    const drift = await startDrift()
    try {
      const args = ['verify', '--target', `${drift.url}/v1`, '--allow-writes', '--allow-quota', '--max-wait', '0']
      const env = { PETSTORE_VERIFY_KEY: DRIFT_KEY, PETSTORE_VERIFY_FREE_KEY: DRIFT_FREE }
      result = await runCli([...args, '--json'], env)
      table = await runCli(args, env)
      report = parse(result.stdout)
    } finally {
      await drift.close()
    }
  })

  it('exits 1 without a stack trace', () => {
    expect(result.code).toBe(1)
    expect(result.stderr).not.toMatch(NO_STACK)
  })

  it('names the option of each difference an option of the mock can make', () => {
    expect(check(report, 'query.limit-out-of-range')).toMatchObject({
      ok: false,
      actual: 'limit=0: 200, 1 pet (clamped to 1); limit=500: 200, up to 100 (clamped)',
      option: 'queryValidation: "lenient"',
    })
    expect(check(report, 'create.missing-content-type')).toMatchObject({
      ok: false,
      actual: '415 Error',
      option: 'mediaTypeErrorStatus: 415',
    })
    expect(check(report, 'create.charset-encoding')).toMatchObject({
      ok: false,
      actual: 'charset=iso-8859-1: 415 Error; Content-Encoding gzip: 415 Error',
      expected: 'charset=iso-8859-1: 400 Error; Content-Encoding gzip: 400 Error',
      option: 'mediaTypeErrorStatus: 415',
    })
    expect(check(report, 'create.default-status')).toMatchObject({ ok: false, option: 'defaultStatus: "available"' })
    expect(check(report, 'rate.unauthenticated-headers')).toMatchObject({ ok: false, option: 'rateLimit.unauthenticatedHeaders: "omit"' })
    expect(check(report, 'rate.retry-after-format')).toMatchObject({ ok: false, option: 'rateLimit.retryAfterFormat: "http-date"' })
  })

  it('names a difference no option of the mock can make with no option', () => {
    expect(check(report, 'get.non-integer-id')).toMatchObject({
      ok: false,
      actual: 'abc: 400 Error; 9223372036854775808: 404 Error',
      option: null,
    })
    expect(check(report, 'get.deprecation-headers')).toMatchObject({ ok: false, option: null })
    expect(check(report, 'route.unknown-path')).toMatchObject({ ok: false, option: null })
    // limit=0 is clamped there, so its 400 is the one for petId abc: it leaves X-RateLimit-Remaining as it was.
    expect(check(report, 'rate.counting-400')).toMatchObject({
      ok: false,
      expected: 'a 400 counts (X-RateLimit-Remaining down by one)',
      actual: 'a 400 does not count (X-RateLimit-Remaining unchanged)',
      option: null,
    })
  })

  it('marks what the target answers against the spec itself as not as the spec says', () => {
    // A text 404 is no Error body and no JSON.
    expect(check(report, 'errors.body')).toMatchObject({ ok: false, option: null })
    expect(check(report, 'errors.body').actual).toContain('GET /petstore-mock-verify/no-such-path -> 404: the body is not JSON')
    expect(check(report, 'bodies.json')).toMatchObject({ ok: false })
    expect(table.stdout).toContain('Not as the spec says: errors.body, bodies.json.')
  })

  it('passes what the target does as the spec says', () => {
    for (const id of [
      'list.ok',
      'list.default-limit',
      'list.status-filter',
      'list.order',
      'get.ok',
      'create.ok',
      'auth.missing-key',
      'rate.limit-exceeded',
    ])
      expect(check(report, id).ok, id).toBe(true)
  })

  it('prints each failed check in its table, exiting 1', () => {
    expect(table.code).toBe(1)
    expect(table.stdout).toMatch(/^FAIL\s+query\.limit-out-of-range/m)
    expect(table.stdout).toMatch(/^FAIL\s+rate\.counting-400/m)
  })

  it('never prints either key, redacting the one the target echoes', () => {
    for (const output of [result.stdout, result.stderr, table.stdout, table.stderr]) {
      expect(output).not.toContain(DRIFT_KEY)
      expect(output).not.toContain(DRIFT_FREE)
    }
    expect(check(report, 'get.deprecation-headers').actual).toContain('key=<redacted key>')
  })
})

/** Starts Prism on a free port, serving the mock's OpenAPI document; resolves when it answers. */
async function startPrism(): Promise<{ url: string; child: ChildProcess }> {
  const probe = createServer()
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done))
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((done) => probe.close(() => done()))
  const spec = join(dir, 'openapi.json')
  await writeFile(spec, JSON.stringify(openApiDocument({ serverUrl: `http://127.0.0.1:${port}/v1` })))
  const child = spawn(join(ROOT, 'node_modules/.bin/prism'), ['mock', spec, '-p', String(port), '-h', '127.0.0.1'], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + PROCESS_CEILING_MS
  for (;;) {
    const up = await fetch(`${url}/pets?limit=1`, { headers: { authorization: 'Bearer x' } }).then(
      (response) => response.ok,
      () => false,
    )
    if (up) return { url, child }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL')
      throw new Error(`Prism did not answer on ${url} within ${PROCESS_CEILING_MS / 1000} s.`)
    }
    await new Promise((done) => setTimeout(done, 100))
  }
}

describe('verify against an implementation nobody here wrote', () => {
  it('ends with a clean report against Prism (which serves the paths without /v1), never a crash', async () => {
    const { url, child } = await startPrism()
    try {
      const args = ['verify', '--target', url, '--key', 'prism-main-key-0001', '--allow-writes', '--free-key', 'prism-free-key-0002']
      const result = await runCli([...args, '--allow-quota', '--max-wait', '0', '--json'])
      expect([0, 1]).toContain(result.code)
      expect(result.stderr).not.toMatch(NO_STACK)
      const report = parse(result.stdout)
      expect(report.checks.length).toBeGreaterThan(30)
      expect(check(report, 'list.ok').ok).toBe(true)
      expect(report.checks.every((c) => typeof c.actual === 'string' && !c.actual.startsWith('could not check'))).toBe(true)
      expect(result.stdout + result.stderr).not.toContain('prism-main-key-0001')
    } finally {
      child.kill('SIGKILL')
    }
  })
})

describe('verify refusing to run', () => {
  it('exits 2 naming the URL when the target cannot be reached, without printing the key', async () => {
    const probe = createServer()
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done))
    const { port } = probe.address() as AddressInfo
    await new Promise<void>((done) => probe.close(() => done()))
    const result = await runCli(['verify', '--target', `http://127.0.0.1:${port}/v1`, '--key', 'sk-unreachable-secret-9'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`petstore-mock verify: cannot reach http://127.0.0.1:${port}/v1: ECONNREFUSED`)
    expect(result.stdout + result.stderr).not.toContain('sk-unreachable-secret-9')
    expect(result.stderr).not.toMatch(NO_STACK)
  })

  it('exits 2 for a bad option, a missing key or a quota check without a free key, naming the fix', async () => {
    const bad = await runCli(['verify', '--target', 'http://127.0.0.1:9/v1', '--key', 'k', '--bogus'])
    expect(bad).toMatchObject({ code: 2, stdout: '' })
    expect(bad.stderr).toBe("petstore-mock verify: Unknown option '--bogus'. Run petstore-mock verify --help for the options.\n")
    const noKey = await runCli(['verify', '--target', 'http://127.0.0.1:9/v1'])
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain('--key is required')
    const noFree = await runCli(['verify', '--target', 'http://127.0.0.1:9/v1', '--key', 'k', '--allow-quota'])
    expect(noFree.code).toBe(2)
    expect(noFree.stderr).toContain('--allow-quota needs --free-key KEY')
    const budget = await runCli(['verify', '--target', 'http://127.0.0.1:9/v1', '--key', 'k', '--max-requests', 'lots'])
    expect(budget.stderr).toContain('--max-requests must be a whole number from 1 to 100000, got "lots".')
  })

  const startWithSecretKey = () => startServer({ keys: [{ key: 'sk-verify-secret-1234', plan: 'pro' }] })

  it('exits 2 when the target refuses the key, without printing it', async () => {
    const { url } = await startWithSecretKey()
    const refused = await runCli(['verify', '--target', `${url}/v1`, '--key', 'sk-verify-wrong-5678'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('refused the key given with --key')
    expect(refused.stderr).not.toContain('sk-verify-wrong-5678')
  })

  it('never prints a key it was given in PETSTORE_VERIFY_KEY', async () => {
    const { url } = await startWithSecretKey()
    const ok = await runCli(['verify', '--target', `${url}/v1`, '--json'], { PETSTORE_VERIFY_KEY: 'sk-verify-secret-1234' })
    expect(ok.code).toBe(0)
    expect(ok.stdout + ok.stderr).not.toContain('sk-verify-secret-1234')
  })

  it('lists every option on a line of --help, which ends with examples (test/cli/usage.test.ts)', async () => {
    const help = await runCli(['verify', '--help'])
    expect(help.code).toBe(0)
    for (const flag of [
      'target',
      'key',
      'free-key',
      'config',
      'allow-writes',
      'allow-quota',
      'allow-ban',
      'max-requests',
      'max-wait',
      'timeout',
      'write-config',
      'json',
    ])
      expect(help.stdout).toMatch(
        new RegExp(`^ {2}--${flag}\\b[^\\n]*\\[env PETSTORE_VERIFY_${flag.toUpperCase().replace(/-/g, '_')}\\]$`, 'm'),
      )
    expect(help.stdout).toMatch(/^Examples:\n {2}petstore-mock verify --target /m)
  })
})

describe('the report, built in-process', () => {
  it('keeps the budget: checks past --max-requests are skipped, never sent', async () => {
    const { url, server } = await startServer()
    const report = await verify({ target: `${url}/v1`, key: 'test-pro', maxRequests: 10 })
    expect(report.budget).toMatchObject({ max: 10, used: 10 })
    expect(report.failed).toBe(0)
    expect(report.skipped).toBeGreaterThan(10)
    expect(report.checks.find((c) => c.id === 'auth.missing-key')?.skipped).toMatch(
      /left in the budget \(--max-requests\)|budget is used up/,
    )
    expect(server.sessions.main.journal.find({}).length).toBeLessThanOrEqual(10)
  })

  it('redacts the key from what the target echoes through the fetch it is given', async () => {
    const { url } = await startServer({ keys: [{ key: 'sk-in-process-key-42', plan: 'pro' }] })
    const echoing: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      const headers = new Headers(response.headers)
      headers.set('link', '<https://example.test/?k=sk-in-process-key-42>')
      return new Response(await response.arrayBuffer(), { status: response.status, headers })
    }
    const report = await verify({ target: `${url}/v1`, key: 'sk-in-process-key-42', fetch: echoing })
    expect(JSON.stringify(report)).not.toContain('sk-in-process-key-42')
    expect(report.checks.find((c) => c.id === 'get.deprecation-headers')?.actual).toContain('<redacted key>')
  })

  /**
   * Verifies the mock through a fetch that answers the free key's 3rd request with a 429 and Retry-After: 1; `early`
   * counts the free key's requests sent before that second had passed.
   */
  const verifyThroughShortRetryAfter = async () => {
    const { url } = await startServer()
    let freeRequests = 0
    let retryAfterPassed = true
    let early = 0
    // The free key's 3rd request gets a 429 with Retry-After: 1; everything else goes to the mock server.
    const shortLimit: typeof fetch = async (input, init) => {
      if (new Headers(init?.headers).get('authorization') !== 'Bearer test-free') return fetch(input, init)
      if (!retryAfterPassed) early += 1
      freeRequests += 1
      if (freeRequests !== 3) return fetch(input, init)
      // A timer of the Retry-After, started before the verifier sees the 429 and starts its own wait: timers fire in
      // the order they are due, so on any machine this one has fired before a request that waited Retry-After out.
      retryAfterPassed = false
      setTimeout(() => {
        retryAfterPassed = true
      }, 1000)
      const headers = { 'content-type': 'application/json', 'retry-after': '1', 'x-ratelimit-remaining': '0' }
      return new Response(JSON.stringify({ code: 'rate_limited', message: 'Slow down.', status: 429 }), { status: 429, headers })
    }
    const report = await verify({
      target: `${url}/v1`,
      key: 'test-pro',
      freeKey: 'test-free',
      allowQuota: true,
      maxWaitSeconds: 5,
      fetch: shortLimit,
    })
    return { report, early }
  }

  it('is served again after waiting out a short Retry-After itself', async () => {
    const { report } = await verifyThroughShortRetryAfter()
    const honoured = report.checks.find((c) => c.id === 'rate.retry-after-honoured')
    expect(honoured).toMatchObject({ ok: true, actual: '200 after waiting 1 s (Retry-After 1)' })
  })

  it('sends nothing before a short Retry-After has passed', async () => {
    const { early } = await verifyThroughShortRetryAfter()
    expect(early).toBe(0)
  })

  it('counts again when the minute ends in the middle of the counting check, instead of skipping it', async () => {
    const { url } = await startServer()
    let seen = 0
    let moved = 0
    // The counting check's 404 (the key's second request to that path, after route.unknown-path's) says a later
    // X-RateLimit-Reset, as when the window turns between two requests.
    const windowTurns: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      const keyed = new Headers(init?.headers).get('authorization') === 'Bearer test-pro'
      if (!keyed || !String(input).includes('/no-such-path')) return response
      seen += 1
      if (seen !== 2) return response
      moved += 1
      const headers = new Headers(response.headers)
      headers.set('x-ratelimit-reset', String(Number(headers.get('x-ratelimit-reset')) + 60))
      return new Response(await response.arrayBuffer(), { status: response.status, headers })
    }
    const report = await verify({ target: `${url}/v1`, key: 'test-pro', fetch: windowTurns })
    expect(moved).toBe(1)
    expect(report.checks.find((c) => c.id === 'rate.counting')).toMatchObject({ ok: true, actual: 'a 404 counts; a 401 does not count' })
    expect(report.budget.used).toBeLessThanOrEqual(report.budget.planned)
  })

  it('sees that a 429 uses no quota: after Retry-After, the new window counts only its own request', async () => {
    const keys = [
      { key: 'test-pro', plan: 'pro' as const },
      { key: 'test-free', plan: 'free' as const, limits: { perMinute: 3, perDay: 1000 } },
    ]
    const { url, server } = await startServer({ keys })
    // The server's clock stands 5 s before a minute ends however long the checks take, until the free key's first
    // 429 (Retry-After: 5); from then it runs, so the minute ends while the verifier waits Retry-After out.
    const { clock } = server.sessions.main
    clock.set('2026-06-01T12:00:55Z')
    const minuteEndsWhileWaiting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      const free = new Headers(init?.headers).get('authorization') === 'Bearer test-free'
      if (free && response.status === 429 && clock.frozen) clock.set(clock.now(), { running: true })
      return response
    }
    const report = await verify({
      target: `${url}/v1`,
      key: 'test-pro',
      freeKey: 'test-free',
      allowQuota: true,
      maxWaitSeconds: 10,
      mock: { keys },
      fetch: minuteEndsWhileWaiting,
    })
    const uncounted = report.checks.find((c) => c.id === 'rate.429-uncounted')
    expect(uncounted).toMatchObject({
      ok: true,
      actual: 'every 429 says X-RateLimit-Remaining 0; after Retry-After, only that request is counted',
    })
    expect(report.budget.used).toBeLessThanOrEqual(report.budget.planned)
  })

  /** The options found by four checks, two of which need opposite values of queryValidation. */
  const mergedFound = () => {
    const lenient = { label: 'queryValidation: "lenient"', config: { queryValidation: 'lenient' } }
    const strict = { label: 'queryValidation: "strict"', config: { queryValidation: 'strict' } }
    const format = { label: 'rateLimit.retryAfterFormat: "http-date"', config: { rateLimit: { retryAfterFormat: 'http-date' } } }
    const omit = { label: 'rateLimit.unauthenticatedHeaders: "omit"', config: { rateLimit: { unauthenticatedHeaders: 'omit' } } }
    const merged = mergePatches([
      { check: 'query.limit-out-of-range', patch: lenient },
      { check: 'query.status-unknown', patch: strict },
      { check: 'rate.retry-after-format', patch: format },
      { check: 'rate.unauthenticated-headers', patch: omit },
    ])
    return merged
  }

  it('merges the options found into one config, the first of two that conflict kept', () => {
    expect(mergedFound().config).toEqual({
      queryValidation: 'lenient',
      rateLimit: { retryAfterFormat: 'http-date', unauthenticatedHeaders: 'omit' },
    })
  })

  it('reports two options found that cannot both hold as a conflict', () => {
    expect(mergedFound().conflicts).toEqual([
      'queryValidation: query.status-unknown needs "strict", query.limit-out-of-range needs "lenient" (kept)',
    ])
  })

  it('applies the options found over a config file, removing the keys they unset', () => {
    expect(
      applyPatch(
        { defaultStatus: 'sold', rateLimit: { banAfterEarlyRetries: 3 } },
        { defaultStatus: undefined, rateLimit: { retryAfterFormat: 'http-date' } },
      ),
    ).toEqual({
      rateLimit: { banAfterEarlyRetries: 3, retryAfterFormat: 'http-date' },
    })
  })

  // What a target and the mock answered is described in words that do not depend on their data, so the two compare.
  it('describes a page by what it is, whatever the number of pets', () => {
    const clamp: [string, number][] = [
      ['up to 100 (clamped)', 100],
      ['the default 20', 20],
    ]
    expect(pageOf(50, 50, clamp)).toBe('up to 100 (clamped)')
    expect(pageOf(100, 1000, clamp)).toBe('up to 100 (clamped)')
    expect(pageOf(20, 1000, clamp)).toBe('the default 20')
    expect(pageOf(500, 1000, clamp)).toBe('500 pets, over the maximum 100')
  })

  it('describes Retry-After by its format, whatever its value', () => {
    expect(retryAfterFormat('42')).toBe('Retry-After in delta-seconds')
    expect(retryAfterFormat('Thu, 05 Dec 2030 00:00:00 GMT')).toBe('Retry-After as an HTTP-date')
  })

  it('describes a path under {base}, whatever the base', () => {
    expect(underBase('</v1/pets>; rel="successor-version"', '/v1')).toBe('<{base}/pets>; rel="successor-version"')
    expect(underBase('https://api.example/v1/pets/7', '/v1')).toBe('(absolute) {base}/pets/7')
  })

  it('redacts every occurrence of a key, ignoring an empty one', () => {
    expect(redact('Bearer abc-123 and abc-123', ['abc-123', ''])).toBe('Bearer <redacted key> and <redacted key>')
  })

  /** A report of one failed check whose difference an option of the mock can make. */
  const oneFailedReport = (): VerifyReport => {
    const result: CheckResult = {
      id: 'query.status-unknown',
      kind: 'decision',
      title: 'An unknown status value',
      spec: 'Not shown: decision row 7',
      expected: 'status=x: 400 Error',
      actual: 'status=x: 200, no pets',
      ok: false,
      option: 'queryValidation: "lenient"',
    }
    const report: VerifyReport = {
      target: 'http://127.0.0.1:4010/v1',
      passed: 0,
      failed: 1,
      skipped: 0,
      budget: { max: 200, planned: 30, used: 1 },
      checks: [result],
      config: { queryValidation: 'lenient' },
      conflicts: [],
    }
    return report
  }

  it('formats the table within its width', () => {
    const table = formatTable(oneFailedReport(), 120)
    expect(Math.max(...table.split('\n').map((line) => line.length))).toBeLessThanOrEqual(120)
    expect(table).toContain('Options that make the mock answer like the target: queryValidation: "lenient".')
  })

  it('formats the JSON with the documented keys', () => {
    const json = JSON.parse(formatJson(oneFailedReport())) as JsonReport
    expect(Object.keys(json)).toEqual(['target', 'passed', 'failed', 'skipped', 'budget', 'checks', 'config', 'conflicts'])
    expect(json.checks[0]).toMatchObject({ id: 'query.status-unknown', ok: false, option: 'queryValidation: "lenient"' })
  })
})
