/**
 * `GET /__mock/metrics` (docs/explain.md, "Metrics"): the scripted run of sequence.ts played over HTTP, then the
 * server's Prometheus text read back and compared with the rules the spec says decided each answer, and with the
 * journal's own account of them.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { closeServers, rawRequest, startServer } from '../http/support.js'
import { type Driver, playSequence, SEQUENCE_KEYS } from './sequence.js'

/** The duration histogram's bounds in seconds, as docs/explain.md lists them. */
const DURATION_BOUNDS = ['0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30']

/** One sample of the text format: its name, its labels, its value. */
interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/** The samples of Prometheus' text format 0.0.4 (comments skipped; label values here hold no escaped quotes). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match) continue
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="([^"]*)"/g)].map(([, k, v]) => [k, v]))
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) })
  }
  return samples
}

/** The sum of the samples named `name` whose labels include `labels`. */
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v))
    .reduce((sum, sample) => sum + sample.value, 0)

/** Drives the server over HTTP: each request with the key's Authorization header, in `session` when named. */
const httpDriver = (url: string, session?: string): Driver => {
  const sessionHeader: Record<string, string> = session === undefined ? {} : { 'x-mock-session': session }
  return {
    send: (path, init = {}) =>
      fetch(`${url}${path}`, {
        headers: { ...(init.key ? { authorization: `Bearer ${init.key}` } : {}), ...sessionHeader, ...init.headers },
      }),
    async setClock(iso) {
      const response = await fetch(`${url}/__mock/clock`, { method: 'POST', headers: sessionHeader, body: JSON.stringify({ set: iso }) })
      expect(response.status, await response.text()).toBe(200)
    },
  }
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await fetch(`${url}/__mock/metrics`, { headers })
  expect(response.status).toBe(200)
  return parseMetrics(await response.text())
}

/** A GET with a Host header of our choosing (fetch sets its own). */
const rawGet = (url: string, path: string, headers: Record<string, string>) => rawRequest(url, path, { headers })

afterEach(closeServers)

describe('GET /__mock/metrics', () => {
  it('counts each answer of the scripted run by operation, status and rule, as the journal records them', async () => {
    const { url } = await startServer({ keys: SEQUENCE_KEYS })
    const played = await playSequence(httpDriver(url))
    const samples = await scrape(url)
    const journal = (await (await fetch(`${url}/__mock/requests?limit=1000`)).json()) as {
      operation?: string
      status: number
      rule: string
    }[]
    expect(journal).toHaveLength(72)
    const expected = new Map<string, number>()
    for (const { operation, status, rule } of journal) {
      const key = `${operation ?? 'none'} ${status} ${rule}`
      expected.set(key, (expected.get(key) ?? 0) + 1)
    }
    const counted = new Map(
      samples
        .filter((sample) => sample.name === 'petstore_mock_requests_total')
        .map(({ labels, value }) => [`${labels.operation} ${labels.status} ${labels.rule}`, value]),
    )
    expect(counted).toEqual(expected)
    // Each step's rule, counted once for the step (and for the requests the run sends between them).
    const requests = (rule: string) => total(samples, 'petstore_mock_requests_total', { rule })
    expect(requests('ok')).toBe(61)
    expect(requests('rate.minute-window')).toBe(5)
    expect(requests('rate.day-window')).toBe(1)
    expect(requests('rate.ban')).toBe(1)
    expect(requests('lifecycle.after-sunset')).toBe(1)
    expect(requests('scenario.fault')).toBe(1)
    expect(requests('auth.missing')).toBe(1)
    for (const { step, response } of played) {
      const labels = { status: String(step.status), rule: step.rule }
      expect(total(samples, 'petstore_mock_requests_total', labels), step.label).toBeGreaterThanOrEqual(1)
      expect(response.status, step.label).toBe(step.status)
    }
  })

  it('counts rate-limit answers by plan and window, the ban, the fault, the sessions and every duration', async () => {
    const { url } = await startServer({ keys: SEQUENCE_KEYS })
    await playSequence(httpDriver(url))
    const samples = await scrape(url)
    expect(total(samples, 'petstore_mock_rate_limited_total', { plan: 'free', window: 'minute' })).toBe(5)
    expect(total(samples, 'petstore_mock_rate_limited_total', { plan: 'free', window: 'ban' })).toBe(1)
    expect(total(samples, 'petstore_mock_rate_limited_total', { plan: 'enterprise', window: 'day' })).toBe(1)
    expect(total(samples, 'petstore_mock_rate_limited_total')).toBe(7)
    expect(total(samples, 'petstore_mock_bans_total', { plan: 'free' })).toBe(1)
    expect(total(samples, 'petstore_mock_faults_total', { fault: 'status-503' })).toBe(1)
    expect(total(samples, 'petstore_mock_faults_total')).toBe(1)
    expect(total(samples, 'petstore_mock_sessions')).toBe(1)
    expect(total(samples, 'petstore_mock_journal_bytes')).toBeGreaterThan(0)
    expect(total(samples, 'petstore_mock_request_duration_seconds_count')).toBe(72)
    expect(total(samples, 'petstore_mock_request_duration_seconds_bucket', { le: '+Inf' })).toBe(72)
  })

  it('counts the answers of a session created later, and a ban once though its key keeps being refused', async () => {
    const { url } = await startServer({ keys: SEQUENCE_KEYS })
    await playSequence(httpDriver(url))
    const later = httpDriver(url, 'later')
    await later.setClock('2026-06-01T12:00:30Z')
    // 60 of the minute, the 429, 4 early retries, the 5th earns the ban (decision 30), then one while it lasts.
    const statuses: number[] = []
    for (let i = 0; i < 67; i++) statuses.push((await later.send('/v1/pets?limit=1', { key: 'test-free' })).status)
    expect(statuses.filter((status) => status === 429)).toHaveLength(7)
    const samples = await scrape(url)
    expect(total(samples, 'petstore_mock_sessions')).toBe(2)
    expect(total(samples, 'petstore_mock_requests_total', { rule: 'rate.ban' })).toBe(3)
    expect(total(samples, 'petstore_mock_rate_limited_total', { plan: 'free', window: 'ban' })).toBe(3)
    expect(total(samples, 'petstore_mock_bans_total', { plan: 'free' })).toBe(2)
    expect(total(samples, 'petstore_mock_requests_total')).toBe(72 + 67)
    expect(total(samples, 'petstore_mock_request_duration_seconds_count')).toBe(72 + 67)
  })

  it('keeps counting with the journal off, and two servers in one process count apart', async () => {
    const off = await startServer({ journalLimit: 0 })
    const other = await startServer({})
    for (let i = 0; i < 3; i++) await (await fetch(`${off.url}/v1/pets`, { headers: { authorization: 'Bearer test-pro' } })).arrayBuffer()
    expect(total(await scrape(off.url), 'petstore_mock_requests_total', { operation: 'listPets', status: '200', rule: 'ok' })).toBe(3)
    expect(total(await scrape(other.url), 'petstore_mock_requests_total')).toBe(0)
  })

  it('puts each duration in the first bucket at or above it, the buckets counted cumulatively (le)', async () => {
    // --latency 30: every answer is handed over at least 30 ms after it arrived, so none fits le=0.025.
    const { url } = await startServer({ latency: 30 })
    for (let i = 0; i < 3; i++) await (await fetch(`${url}/v1/pets`, { headers: { authorization: 'Bearer test-pro' } })).arrayBuffer()
    const samples = (await scrape(url)).filter((sample) => sample.name === 'petstore_mock_request_duration_seconds_bucket')
    const counts = samples.map((sample) => sample.value)
    expect(counts).toEqual([...counts].sort((a, b) => a - b))
    expect(samples.map((sample) => sample.labels.le)).toEqual([...DURATION_BOUNDS, '+Inf'])
    expect(total(samples, 'petstore_mock_request_duration_seconds_bucket', { le: '0.025' })).toBe(0)
    expect(total(samples, 'petstore_mock_request_duration_seconds_bucket', { le: '+Inf' })).toBe(3)
    const sum = total(await scrape(url), 'petstore_mock_request_duration_seconds_sum', { operation: 'listPets' })
    expect(sum).toBeGreaterThanOrEqual(0.09)
  })

  it("counts a fault that answers in the core's place under the operation it routed to, and each fault of a chain by type", async () => {
    // docs/scenarios.md's checkout-trouble faults: every create slowed, every third one a 503 instead (a chain of two).
    const scenario = {
      name: 'checkout-trouble',
      description: 'slow creates, every third a 503',
      faults: [
        { match: { operation: 'createPet' }, fault: { type: 'latency', min: 1, max: 2 } },
        { chaos: true, match: { method: 'POST', path: '/v1/pets' }, when: { every: 3 }, fault: { type: 'status', status: 503 } },
      ],
    }
    const { url } = await startServer({ scenarios: [scenario], scenario: 'checkout-trouble' })
    const create = { method: 'POST', headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json' } }
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${url}/v1/pets`, { ...create, body: '{"name":"Rex","categoryId":1}' })
      await response.arrayBuffer()
      statuses.push(response.status)
    }
    expect(statuses).toEqual([201, 201, 503])
    const samples = await scrape(url)
    expect(total(samples, 'petstore_mock_requests_total', { operation: 'createPet', rule: 'scenario.fault', status: '503' })).toBe(1)
    expect(total(samples, 'petstore_mock_requests_total', { operation: 'createPet' })).toBe(3)
    expect(total(samples, 'petstore_mock_requests_total', { operation: 'none' })).toBe(0)
    expect(total(samples, 'petstore_mock_request_duration_seconds_count', { operation: 'createPet' })).toBe(3)
    expect(total(samples, 'petstore_mock_faults_total', { fault: 'latency' })).toBe(3)
    expect(total(samples, 'petstore_mock_faults_total', { fault: 'status-503' })).toBe(1)
    expect(total(samples, 'petstore_mock_faults_total')).toBe(4)
  })

  it('creates no session for a scrape that names one, so a scraper never evicts a session under maxSessions', async () => {
    const { url } = await startServer({ maxSessions: 1 })
    const work = { authorization: 'Bearer test-pro', 'x-mock-session': 'work' }
    const created = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { ...work, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    })
    const { id } = (await created.json()) as { id: number }
    await scrape(url, { 'x-mock-session': 'prometheus' })
    expect((await fetch(`${url}/__mock/metrics?session=other`)).status).toBe(200)
    expect((await fetch(`${url}/__mock/health`, { headers: { 'x-mock-session': 'probe' } })).status).toBe(200)
    expect(await (await fetch(`${url}/__mock/sessions`)).json()).toEqual(['default', 'work'])
    expect((await fetch(`${url}/v1/pets/${id}`, { headers: work })).status).toBe(200)
  })

  it("answers in Prometheus' text format", async () => {
    const { url } = await startServer({})
    const response = await fetch(`${url}/__mock/metrics`)
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const text = await response.text()
    expect(text).toContain('# TYPE petstore_mock_requests_total counter')
    expect(text).toContain('# TYPE petstore_mock_request_duration_seconds histogram')
    expect(text).toContain('# TYPE petstore_mock_sessions gauge')
  })

  it('refuses a foreign Host and a cross-site Origin with 403 admin_forbidden, like every admin call', async () => {
    const { url } = await startServer({})
    const foreign = await rawGet(url, '/__mock/metrics', { host: `evil.test:${new URL(url).port}` })
    expect(foreign.status).toBe(403)
    expect(JSON.parse(foreign.body)).toMatchObject({ code: 'admin_forbidden', status: 403 })
    const crossSite = await fetch(`${url}/__mock/metrics`, { headers: { origin: 'https://evil.test' } })
    expect(crossSite.status).toBe(403)
    expect(await crossSite.json()).toMatchObject({ code: 'admin_forbidden', status: 403 })
  })

  it('needs the admin token when the server has one: 401 admin_unauthorized without it', async () => {
    const { url } = await startServer({ adminToken: 'metrics-token' })
    const without = await fetch(`${url}/__mock/metrics`)
    expect(without.status).toBe(401)
    expect(await without.json()).toMatchObject({ code: 'admin_unauthorized', status: 401 })
    expect((await fetch(`${url}/__mock/metrics`, { headers: { authorization: 'Bearer metrics-token' } })).status).toBe(200)
  })
})
