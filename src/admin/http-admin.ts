/**
 * The admin operations (operations.ts) over a running server's admin API: `petstore-mock mcp --url URL` and the
 * server's control panel. Each call is the admin request itself, at the route operations.ts declares, so the world
 * changes exactly as it would for curl. Imports nothing but operations.ts: the panel loads it in the browser as it is.
 */
import { ADMIN_OPERATIONS, adminRefusal, type MockAdmin, type OperationName } from './operations.js'

/** Where the server is, and who calls. */
export interface HttpAdminTarget {
  /** The server's base address (`http://127.0.0.1:4010`, with or without `/v1`); the page's own origin when empty. */
  readonly url: string
  /** The admin token (`--admin-token`), when the server has one: sent as a header, never in a URL. */
  readonly token?: string | undefined
  /** The session a call acts on when it names none (`X-Mock-Session`); default: the server's default world. */
  readonly session?: string | undefined
}

/** Sends operation `name` to the server: its declared method and route, the session, the token; a refusal rejects. */
function caller(target: HttpAdminTarget) {
  const base = target.url.replace(/\/+$/, '').replace(/\/v1$/, '')
  return async (name: OperationName, session: string | undefined, body?: unknown, params: Record<string, string> = {}, query = '') => {
    const { method, path } = ADMIN_OPERATIONS[name]
    const url = `${base}${path.replace(/:(\w+)/g, (_, param: string) => encodeURIComponent(params[param] ?? ''))}${query}`
    const headers: Record<string, string> = {}
    if (target.token) headers['authorization'] = `Bearer ${target.token}`
    const named = session || target.session
    if (named) headers['x-mock-session'] = named
    if (body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetch(url, {
        method,
        headers,
        cache: 'no-store',
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      })
    } catch (error) {
      throw adminRefusal(
        `The server at ${base || 'this page'} does not answer (${(error as Error).message}). Is it running? Start it with petstore-mock --port N.`,
        { status: 0, code: undefined },
      )
    }
    if (response.ok) return response
    const text = await response.text()
    let answer: { code?: string; message?: string } = {}
    try {
      answer = JSON.parse(text) as typeof answer
    } catch {}
    throw adminRefusal(`${method} ${new URL(url, 'http://x').pathname} was refused with ${response.status}: ${answer.message ?? text}`, {
      status: response.status,
      code: answer.code,
    })
  }
}

/**
 * @example
 * const admin = createHttpAdmin({ url: 'http://127.0.0.1:4010' })
 * await admin.advanceClock(60)
 */
export function createHttpAdmin(target: HttpAdminTarget): MockAdmin {
  const call = caller(target)
  const json = async <T>(name: OperationName, session?: string, body?: unknown, params?: Record<string, string>, query?: string) =>
    (await (await call(name, session, body, params, query)).json()) as T
  const done = async (name: OperationName, session?: string, body?: unknown) => void (await call(name, session, body))
  return {
    health: () => json('health'),
    sessions: () => json('sessions'),
    openapi: () => json('openapi'),
    keys: (session) => json('keys', session),
    setKey: (key, start, session) => json('setKey', session, start, { key }),
    scenarios: (session) => json('scenarios', session),
    scenario: (name, session) => json('scenario', session, undefined, { name }),
    currentScenario: async (session) => (await json<{ scenario: string }>('currentScenario', session)).scenario,
    useScenario: async (name, session) => (await json<{ scenario: string }>('useScenario', session, { name })).scenario,
    timeline: (session) => json('timeline', session),
    coverage: (session) => json('coverage', session),
    reset: (session) => done('reset', session),
    clock: (session) => json('clock', session),
    setClock: (moment, running, session) => json('setClock', session, { set: moment, ...(running === undefined ? {} : { running }) }),
    advanceClock: (seconds, session) => json('advanceClock', session, { advanceSeconds: seconds }),
    realTime: (session) => json('realTime', session, { real: true }),
    journal: (query, session) => {
      const params = new URLSearchParams()
      for (const [field, value] of Object.entries(query)) if (value !== undefined) params.set(field, String(value))
      return json('journal', session, undefined, {}, `?${params}`)
    },
    async request(seq, session) {
      try {
        return await json('request', session, undefined, { seq: String(seq) })
      } catch (error) {
        if ((error as Error & { cause?: { status?: number } }).cause?.status === 404) return undefined
        throw error
      }
    },
    clearJournal: (session) => done('clearJournal', session),
    har: async (session) => (await call('har', session)).text(),
    audit: (session) => json('audit', session),
    async exportState(session, maxChars = Number.POSITIVE_INFINITY) {
      const body = (await call('exportState', session)).body
      if (body === null) return ''
      // Read as it streams, and let go of the rest once it is longer than asked for.
      const decoder = new TextDecoder()
      let text = ''
      const reader = body.getReader()
      for (;;) {
        const { value, done: ended } = await reader.read()
        if (ended) return text + decoder.decode()
        text += decoder.decode(value, { stream: true })
        if (text.length > maxChars) {
          await reader.cancel().catch(() => undefined)
          return undefined
        }
      }
    },
    importState: (text, session) => done('importState', session, text),
    addPets: async (request, session) => (await call('addPets', session, request)).text(),
  }
}
