/**
 * The panel's data from a petstore-mock server: the admin API and the event stream (`/__mock/events`),
 * read with `fetch` so the admin token (when the server has one) travels as a header, never in a URL.
 * Reconnects with backoff and sends `Last-Event-ID`, so no request is missed across a drop.
 */
import { createHttpAdmin } from '../admin/http-admin.js'
import { panelOperations } from './operations.js'
import type { PanelEvent, PanelSource } from './types.js'

export interface HttpSourceOptions {
  /** The server's origin; default: the page's own. */
  readonly origin?: string
  readonly session: string
  /** The admin token (`--admin-token`), when the server has one. */
  readonly token?: string | undefined
}

/** The answer of the admin call that threw `error` (src/admin/operations.ts), or undefined for any other error. */
export { adminFailure } from '../admin/operations.js'

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
  const admin = createHttpAdmin({ url: origin, token: options.token, session: options.session })
  const headers: Record<string, string> = { 'x-mock-session': options.session }
  if (options.token) headers['authorization'] = `Bearer ${options.token}`

  // Where the API lives: `/__mock/health` says (a server started with `--base-url /api/v1` serves it there), read
  // with the first page of requests, before the table can be empty and show the first-request hint.
  let basePath = '/v1'
  let health: Promise<void> | undefined
  const readBasePath = () =>
    (health ??= admin.health().then(
      (answer) => {
        basePath = answer.basePath ?? basePath
      },
      () => undefined,
    ))

  return {
    label: origin,
    session: options.session,
    sessions: () => admin.sessions(),
    firstRequest(key) {
      const header = (value: string) => `-H '${value}' `
      const session = options.session === 'default' ? '' : header(`X-Mock-Session: ${options.session}`)
      return `curl ${key ? header(`Authorization: Bearer ${key}`) : ''}${session}${origin}${basePath}/pets`
    },
    ...panelOperations(admin),
    async journal(query) {
      await readBasePath()
      return admin.journal(query)
    },
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
