/**
 * The panel's data from a petstore-mock server: the admin API and the event stream (`/__mock/events`),
 * read with `fetch` so the admin token (when the server has one) travels as a header, never in a URL.
 * Reconnects with backoff and sends `Last-Event-ID`, so no request is missed across a drop.
 */
import type { ClockRow, KeyRow, PanelEvent, PanelSource, RequestDetail, RequestRow, ScenarioRow, TimelineRow } from './types.js'

export interface HttpSourceOptions {
  /** The server's origin; default: the page's own. */
  readonly origin?: string
  readonly session: string
  /** The admin token (`--admin-token`), when the server has one. */
  readonly token?: string | undefined
}

/**
 * What an admin call that failed answered, carried as the `cause` of the Error it throws. Not a class of the package's
 * error base (`PetStoreMockError`): the panel's modules are served to the browser as they are and import nothing
 * outside src/panel (test/architecture/structure.test.ts), and a second error class of their own would be another
 * base beside it.
 */
export interface AdminFailure {
  readonly status: number
  readonly code: string | undefined
}

/** The answer of the admin call that threw `error`, or undefined for any other error. */
export function adminFailure(error: unknown): AdminFailure | undefined {
  const cause = error instanceof Error ? (error.cause as Partial<AdminFailure> | undefined) : undefined
  return typeof cause?.status === 'number' ? { status: cause.status, code: cause.code } : undefined
}

/** One parsed server-sent event. */
interface Frame {
  event: string
  data: string
  id: string | undefined
}

/** Splits the text received so far into whole events; returns them and the unfinished rest. */
export function parseFrames(text: string): { frames: Frame[]; rest: string } {
  const frames: Frame[] = []
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n')
  const rest = blocks.pop() ?? ''
  for (const block of blocks) {
    const frame: Frame = { event: 'message', data: '', id: undefined }
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const name = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (name === 'event') frame.event = value
      else if (name === 'data') data.push(value)
      else if (name === 'id') frame.id = value
    }
    frame.data = data.join('\n')
    if (data.length > 0) frames.push(frame)
  }
  return { frames, rest }
}

const EVENTS = new Set(['request', 'quota', 'clock', 'scenario', 'reset', 'state', 'cleared', 'stage', 'gap'])

/**
 * @example
 * const source = createHttpSource({ session: new URL(location.href).searchParams.get('session') ?? 'default' })
 */
export function createHttpSource(options: HttpSourceOptions): PanelSource {
  const origin = options.origin ?? location.origin
  const headers: Record<string, string> = { 'x-mock-session': options.session }
  if (options.token) headers['authorization'] = `Bearer ${options.token}`

  const call = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const init: RequestInit = { method, headers: { ...headers }, cache: 'no-store' }
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body)
      ;(init.headers as Record<string, string>)['content-type'] = 'application/json'
    }
    const response = await fetch(`${origin}${path}`, init)
    if (!response.ok) {
      const error = (await response.json().catch(() => ({}))) as { code?: string; message?: string }
      const failure: AdminFailure = { status: response.status, code: error.code }
      throw new Error(error.message ?? `${method} ${path} answered ${response.status}.`, { cause: failure })
    }
    return response
  }
  const json = async <T>(path: string): Promise<T> => (await call('GET', path)).json() as Promise<T>
  const text = async (path: string): Promise<string> => (await call('GET', path)).text()
  const done = (method: string, path: string, body?: unknown): Promise<void> => call(method, path, body).then(() => undefined)

  // Where the API lives: `/__mock/health` says (a server started with `--base-url /api/v1` serves it there), read
  // with the first page of requests, before the table can be empty and show the first-request hint.
  let basePath = '/v1'
  let health: Promise<void> | undefined
  const readBasePath = () =>
    (health ??= json<{ basePath?: string }>('/__mock/health').then(
      (answer) => {
        basePath = answer.basePath ?? basePath
      },
      () => undefined,
    ))

  return {
    label: origin,
    session: options.session,
    sessions: () => json<string[]>('/__mock/sessions'),
    firstRequest(key) {
      const header = (value: string) => `-H '${value}' `
      const session = options.session === 'default' ? '' : header(`X-Mock-Session: ${options.session}`)
      return `curl ${key ? header(`Authorization: Bearer ${key}`) : ''}${session}${origin}${basePath}/pets`
    },
    requests: async (limit) => {
      await readBasePath()
      return (await json<RequestRow[]>(`/__mock/requests?limit=${limit}`)).reverse()
    },
    async request(seq) {
      try {
        return await json<RequestDetail>(`/__mock/requests/${seq}`)
      } catch (error) {
        if (adminFailure(error)?.status === 404) return undefined
        throw error
      }
    },
    keys: () => json<KeyRow[]>('/__mock/keys'),
    scenarios: () => json<ScenarioRow[]>('/__mock/scenarios'),
    clock: () => json<ClockRow>('/__mock/clock'),
    async timeline() {
      // Without a timeline the server answers `{ scenario, current: null, stages: [] }` (src/server/admin/routes.ts).
      const answer = await json<TimelineRow | { stages: [] }>('/__mock/timeline')
      return answer.stages.length > 0 ? (answer as TimelineRow) : null
    },
    useScenario: (name) => done('PUT', '/__mock/scenario', { name }),
    advanceClock: (seconds) => done('POST', '/__mock/clock', { advanceSeconds: seconds }),
    setClock: (moment) => done('POST', '/__mock/clock', { set: moment }),
    realTime: () => done('POST', '/__mock/clock', { real: true }),
    reset: () => done('POST', '/__mock/reset'),
    exportState: () => text('/__mock/state'),
    importState: (state) => done('PUT', '/__mock/state', state),
    har: () => text('/__mock/requests.har'),
    subscribe: (listener) => followEvents(`${origin}/__mock/events`, headers, listener),
  }
}

/** Reads the event stream until stopped, reconnecting after 0.5 s, 1 s, 2 s … 5 s. */
function followEvents(url: string, headers: Record<string, string>, listener: (event: PanelEvent) => void): () => void {
  const controller = new AbortController()
  let lastId: string | undefined
  // `undefined` until the first answer: the first connection is told too, so the panel reads the session again once the
  // server follows it (requests recorded between the panel's first read and the subscription were lost otherwise).
  let connected: boolean | undefined
  const tell = (up: boolean, message?: string) => {
    if (up === connected) return
    connected = up
    listener({ type: 'connection', data: message === undefined ? { connected: up } : { connected: up, message } })
  }
  const readOnce = async () => {
    const response = await fetch(url, {
      headers: { ...headers, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
      cache: 'no-store',
      signal: controller.signal,
    })
    if (!response.ok || !response.body) throw new Error(`The event stream answered ${response.status}.`)
    tell(true)
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffered = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      const { frames, rest } = parseFrames(buffered + value)
      buffered = rest
      for (const frame of frames) {
        if (frame.id !== undefined) lastId = frame.id
        if (EVENTS.has(frame.event)) listener({ type: frame.event, data: JSON.parse(frame.data) } as PanelEvent)
      }
    }
  }
  void (async () => {
    let wait = 500
    while (!controller.signal.aborted) {
      try {
        await readOnce()
        wait = 500
      } catch (error) {
        if (controller.signal.aborted) return
        tell(false, `Lost the event stream (${(error as Error).message}); reconnecting…`)
      }
      if (controller.signal.aborted) return
      tell(false)
      await new Promise((resolve) => setTimeout(resolve, wait))
      wait = Math.min(wait * 2, 5_000)
    }
  })()
  return () => controller.abort()
}
