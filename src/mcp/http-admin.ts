/**
 * The admin operations over a running server's admin API (`petstore-mock mcp --url URL`, and the stdio server that
 * starts its own): each call is the admin request itself, so the world changes exactly as it would for curl.
 */
import type { KeyStatus } from '../core/key-status.js'
import type { AuditReport } from '../journal/audit.js'
import type { ScenarioListing } from '../scenarios/catalogue.js'
import type { ClockView } from '../world/events.js'
import { AdminError, type JournalLine, type MockAdmin } from './admin.js'
import { lineOf } from './world-admin.js'

/** Where the server is: its base address (`http://127.0.0.1:4010`, without `/v1`), and its admin token if it has one. */
export interface HttpAdminTarget {
  readonly url: string
  readonly token?: string | undefined
}

/**
 * @example
 * const admin = createHttpAdmin({ url: 'http://127.0.0.1:4010' })
 * await admin.advanceClock(60)
 */
export function createHttpAdmin(target: HttpAdminTarget): MockAdmin {
  const base = target.url.replace(/\/+$/, '').replace(/\/v1$/, '')
  const call = async (method: string, path: string, session: string | undefined, body?: string): Promise<Response> => {
    const headers: Record<string, string> = {}
    if (target.token) headers.authorization = `Bearer ${target.token}`
    if (session) headers['x-mock-session'] = session
    if (body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
    } catch (error) {
      throw new AdminError(
        `The server at ${base} does not answer (${(error as Error).message}). Is it running? Start it with petstore-mock --port N.`,
      )
    }
    if (response.ok) return response
    const text = await response.text()
    let message = text
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text
    } catch {}
    throw new AdminError(`${method} ${path} was refused with ${response.status}: ${message}`)
  }
  const json = async <T>(method: string, path: string, session: string | undefined, body?: unknown): Promise<T> =>
    (await (await call(method, path, session, body === undefined ? undefined : JSON.stringify(body))).json()) as T
  const name = (value: string) => encodeURIComponent(value)
  return {
    keys: (session) => json<KeyStatus[]>('GET', '/__mock/keys', session),
    setKey: (key, start, session) => json<KeyStatus[]>('POST', `/__mock/keys/${name(key)}`, session, start),
    scenarios: (session) => json<ScenarioListing[]>('GET', '/__mock/scenarios', session),
    scenario: (scenario, session) => json('GET', `/__mock/scenarios/${name(scenario)}`, session),
    useScenario: async (scenario, session) =>
      (await json<{ scenario: string }>('PUT', '/__mock/scenario', session, { name: scenario })).scenario,
    currentScenario: async (session) => (await json<{ scenario: string }>('GET', '/__mock/scenario', session)).scenario,
    timeline: (session) => json('GET', '/__mock/timeline', session),
    reset: async (session) => void (await call('POST', '/__mock/reset', session)),
    clock: (session) => json<ClockView>('GET', '/__mock/clock', session),
    advanceClock: (seconds, session) => json<ClockView>('POST', '/__mock/clock', session, { advanceSeconds: seconds }),
    journal: async (query, session) => {
      const params = new URLSearchParams({ limit: String(query.limit) })
      for (const field of ['status', 'operation', 'plan', 'after', 'before'] as const)
        if (query[field] !== undefined) params.set(field, String(query[field]))
      const entries = await json<Parameters<typeof lineOf>[0][]>('GET', `/__mock/requests?${params}`, session)
      return entries.map(lineOf) as JournalLine[]
    },
    audit: (session) => json<AuditReport>('GET', '/__mock/audit', session),
    exportState: async (session, maxChars = Number.POSITIVE_INFINITY) => {
      const body = (await call('GET', '/__mock/state', session)).body
      if (body === null) return ''
      // Read as it streams, and let go of the rest once it is longer than asked for.
      const decoder = new TextDecoder()
      let text = ''
      for await (const chunk of body) {
        text += decoder.decode(chunk, { stream: true })
        if (text.length > maxChars) {
          await body.cancel().catch(() => undefined)
          return undefined
        }
      }
      return text + decoder.decode()
    },
    importState: async (text, session) => void (await call('PUT', '/__mock/state', session, text)),
    openapi: () => json('GET', '/__mock/openapi.json', undefined),
  }
}
