/**
 * The standalone HTTP server: `node:http` calling the core directly on the hot path
 * (decisions/004-core-over-plain-data.md), express for the admin API under `/__mock`, sessions,
 * CORS, the user's own msw handlers, latency, a state file, and one log line per request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RequestHandler } from 'msw'
import { problem } from '../core/errors.js'
import { between, createRandom, type Random } from '../core/random.js'
import type { ApiRequest, ApiResponse } from '../core/types.js'
import type { World as PetStore, PetStoreOptions } from '../world.js'
import { type CorsOrigins, corsHeaders, preflightHeaders } from './cors.js'
import { TIMEOUT_FAULT_MAX_MS } from './fetch.js'
import { apiRequest, hasBody, readBody, readBodyThen, splitUrl } from './node-request.js'
import { createSessions, DEFAULT_SESSION, type Sessions } from './sessions.js'
import { readStateFile, writeStateFile } from './state-file.js'
import { runUserHandlers } from './user-handlers.js'

export type LogFormat = 'pretty' | 'json' | 'silent'

export interface PetStoreServerOptions extends PetStoreOptions {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number
  /** Address to listen on. Default 127.0.0.1. */
  host?: string
  /** Extra latency per API response, in ms: a fixed number or `{ min, max }` (drawn from a generator seeded by `seed`). */
  latency?: number | { min: number; max: number }
  /** Allowed CORS origins. Default any. */
  corsOrigin?: CorsOrigins
  /** Required as `Authorization: Bearer <token>` on the admin API. Without it the admin API is open on loopback and off elsewhere. */
  adminToken?: string
  /** The user's own msw handlers, in front of the built-in operations. */
  userHandlers?: readonly RequestHandler[]
  /** Where to keep the sessions across restarts. */
  stateFile?: string
  /** One line per request: `pretty` (default), `json` or `silent`. */
  log?: LogFormat
  /** Where log lines go. Default stdout. */
  write?: (line: string) => void
  /** Live sessions kept at most (least recently used evicted). Default 1,000. */
  maxSessions?: number
  /** Bodies over `maxBodyBytes` are drained up to this many bytes before the 413; beyond, the socket is closed. Default 64 MiB. */
  drainLimitBytes?: number
}

export interface PetStoreServer {
  /** Starts listening; resolves with the base URL (`http://127.0.0.1:4010`). */
  listen(): Promise<string>
  /** Stops accepting, finishes in-flight requests, saves state; resolves when closed. */
  close(): Promise<void>
  /** The base URL once listening. */
  readonly url: string
  readonly sessions: Sessions
  /** The default world. */
  readonly petStore: PetStore
  readonly server: Server
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|\[::1\])$/
const SAVE_DELAY_MS = 250

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host)
}

function toFetchRequest(req: IncomingMessage, base: string, body: string | undefined): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item)
  }
  const method = req.method ?? 'GET'
  return new Request(new URL(req.url ?? '/', base), {
    method,
    headers,
    ...(body === undefined || method === 'GET' || method === 'HEAD' ? {} : { body }),
  })
}

/**
 * Creates the standalone server (not yet listening).
 *
 * @example
 * const server = createPetStoreServer({ port: 0, seed: 7, log: 'silent' })
 * const url = await server.listen() // http://127.0.0.1:54321
 * await fetch(`${url}/v1/pets`, { headers: { Authorization: 'Bearer test-free' } })
 * await server.close()
 */
export function createPetStoreServer(options: PetStoreServerOptions = {}): PetStoreServer {
  const host = options.host ?? '127.0.0.1'
  const corsOrigin = options.corsOrigin ?? '*'
  const userHandlers = options.userHandlers ?? []
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`))
  const logFormat = options.log ?? 'pretty'
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024
  const drainLimit = options.drainLimitBytes ?? 64 * 1024 * 1024
  const random: Random = createRandom((options.seed ?? 1) ^ 0x5eed)
  const latency = options.latency
  const stateFile = options.stateFile
  let url = ''
  let closing = false

  let saveTimer: NodeJS.Timeout | undefined
  let saving: Promise<void> = Promise.resolve()
  const sessions = createSessions(options, options.maxSessions ?? 1_000)
  const save = (): Promise<void> => {
    if (!stateFile) return Promise.resolve()
    saving = saving
      .then(async () => {
        const content: Record<string, ReturnType<PetStore['snapshot']>> = {}
        for (const name of sessions.names()) {
          const store = sessions.get(name) as PetStore
          await store.ready()
          content[name] = store.snapshot()
        }
        await writeStateFile(stateFile, { version: 1, sessions: content })
      })
      .catch((error: unknown) => console.error('[petstore-mock] Could not save the state file:', error))
    return saving
  }
  const changed = () => {
    if (!stateFile || saveTimer) return
    saveTimer = setTimeout(() => {
      saveTimer = undefined
      void save()
    }, SAVE_DELAY_MS)
  }

  const adminToken =
    options.adminToken !== undefined && options.adminToken !== '' ? options.adminToken : isLoopback(host) ? undefined : false
  const startedAt = Date.now()
  // express is loaded on the first admin call, not at start-up.
  let admin: Promise<(req: IncomingMessage, res: ServerResponse) => void> | undefined
  const adminApp = () => {
    admin ??= import('./admin.js').then(({ createAdminApp }) => {
      const app = createAdminApp({ sessions, token: adminToken, serverUrl: () => url, startedAt, onChange: changed })
      return (req: IncomingMessage, res: ServerResponse) => app(req, res)
    })
    return admin
  }

  const log = (req: IncomingMessage, status: number, plan: string | undefined, started: number, note?: string) => {
    if (logFormat === 'silent') return
    const ms = Math.round((performance.now() - started) * 10) / 10
    const session = req.headers['x-mock-session']
    if (logFormat === 'json') {
      write(
        JSON.stringify({
          time: new Date().toISOString(),
          method: req.method,
          path: req.url,
          status,
          plan: plan ?? null,
          ms,
          session: session ?? null,
          note: note ?? null,
        }),
      )
    } else {
      write(`${req.method} ${req.url} ${status} ${plan ?? '-'} ${ms}ms${session ? ` [${String(session)}]` : ''}${note ? ` (${note})` : ''}`)
    }
  }

  const send = (res: ServerResponse, response: ApiResponse, extra: Record<string, string>, close: boolean) => {
    // The core's headers object is this response's own: add to it rather than copy it.
    const headers: Record<string, string> = response.headers
    for (const name in extra) headers[name] = extra[name] as string
    headers['content-length'] = String(Buffer.byteLength(response.body))
    if (close || closing) headers.connection = 'close'
    res.writeHead(response.status, headers)
    res.end(response.body)
  }

  /** The server's --latency plus a scenario's. */
  const delay = (scenarioMs = 0): Promise<void> | undefined => {
    const ms = scenarioMs + (latency === undefined ? 0 : typeof latency === 'number' ? latency : between(random, latency.min, latency.max))
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined
  }

  const fail = (req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, started: number, error: unknown) => {
    console.error('[petstore-mock] Request failed:', error)
    if (!res.headersSent)
      send(res, problem('internal_error', 'The mock failed to answer this request; the server log has the details.'), cors, false)
    else res.destroy()
    log(req, 500, undefined, started, 'error')
  }

  /** Writes the core's answer: at once when there is no latency or fault, the common case. */
  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    store: PetStore,
    response: ApiResponse,
    cors: Record<string, string>,
    abandoned: boolean,
    started: number,
  ) => {
    if (response.drop !== undefined) {
      changed()
      store.markDelivered(response)
      if (response.drop === 'timeout') {
        // No answer until the client gives up (or the cap), then the connection is dropped.
        const timer = setTimeout(() => res.destroy(), TIMEOUT_FAULT_MAX_MS)
        res.on('close', () => clearTimeout(timer))
      } else res.destroy()
      return log(req, 0, response.meta?.plan, started, response.meta?.fault)
    }
    send(res, response, cors, abandoned)
    store.markDelivered(response)
    if (abandoned) res.on('finish', () => req.destroy())
    changed()
    log(req, response.status, response.meta?.plan, started, response.meta?.fault)
  }

  const serve = (
    req: IncomingMessage,
    res: ServerResponse,
    store: PetStore,
    request: ApiRequest,
    cors: Record<string, string>,
    abandoned: boolean,
    started: number,
  ) => {
    const result = store.handle(request)
    const wait = result instanceof Promise ? undefined : delay(result.delayMs)
    if (!(result instanceof Promise) && wait === undefined) return answer(req, res, store, result, cors, abandoned, started)
    void (async () => {
      const response = await result
      await (wait ?? delay(response.delayMs))
      answer(req, res, store, response, cors, abandoned, started)
    })().catch((error: unknown) => fail(req, res, cors, started, error))
  }

  /** When user handlers are loaded: read the body, offer the request to them first, then to the core. */
  const serveWithBody = async (
    req: IncomingMessage,
    res: ServerResponse,
    store: PetStore,
    path: string,
    query: string,
    cors: Record<string, string>,
    started: number,
  ) => {
    const body = await readBody(req, maxBodyBytes, drainLimit)
    if (userHandlers.length > 0 && !body.tooLarge) {
      const result = await runUserHandlers(userHandlers, toFetchRequest(req, url || 'http://127.0.0.1', body.text))
      if (result.kind === 'network-error') {
        res.socket?.destroy()
        return log(req, 0, undefined, started, 'user handler: network error')
      }
      if (result.kind === 'response') {
        const headers: Record<string, string> = { ...cors }
        result.response.headers.forEach((value, name) => {
          headers[name] = value
        })
        const buffer = Buffer.from(await result.response.arrayBuffer())
        headers['content-length'] = String(buffer.length)
        res.writeHead(result.response.status, headers)
        res.end(buffer)
        return log(req, result.response.status, undefined, started, 'user handler')
      }
    }
    serve(req, res, store, apiRequest(req, path, query, body), cors, body.abandoned, started)
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = logFormat === 'silent' ? 0 : performance.now()
    const origin = req.headers.origin
    const cors = origin === undefined ? NO_HEADERS : corsHeaders(corsOrigin, origin)
    try {
      const { path, query } = splitUrl(req.url ?? '/')
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        res.writeHead(204, { ...preflightHeaders(corsOrigin, origin, req.headers['access-control-request-headers']), 'content-length': 0 })
        res.end()
        log(req, 204, undefined, started, 'preflight')
        return
      }
      if (path === '/__mock' || path.startsWith('/__mock/')) {
        for (const [name, value] of Object.entries(cors)) res.setHeader(name, value)
        res.on('finish', () => log(req, res.statusCode, undefined, started, 'admin'))
        adminApp().then(
          (app) => app(req, res),
          (error: unknown) => fail(req, res, cors, started, error),
        )
        return
      }
      const store = sessions.get(req.headers['x-mock-session'] as string | undefined)
      if (!store) {
        send(
          res,
          problem('invalid_session', 'X-Mock-Session must be 1-64 characters of letters, digits, ".", "_", ":" or "-".'),
          cors,
          false,
        )
        log(req, 400, undefined, started)
        return
      }
      if (userHandlers.length > 0) {
        serveWithBody(req, res, store, path, query, cors, started).catch((error: unknown) => fail(req, res, cors, started, error))
        return
      }
      if (hasBody(req)) {
        readBodyThen(
          req,
          maxBodyBytes,
          drainLimit,
          (body) => {
            try {
              serve(req, res, store, apiRequest(req, path, query, body), cors, body.abandoned, started)
            } catch (error) {
              fail(req, res, cors, started, error)
            }
          },
          (error) => fail(req, res, cors, started, error),
        )
        return
      }
      serve(req, res, store, { method: req.method ?? 'GET', path, query, headers: req.headers, body: undefined }, cors, false, started)
    } catch (error) {
      fail(req, res, cors, started, error)
    }
  }

  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, onRequest)
  server.on('clientError', (error, socket) => {
    if (!socket.writable) return socket.destroy(error)
    // Requests the HTTP parser refuses (an unknown method, a malformed header) still get an Error body.
    const text = problem('bad_request', `Malformed HTTP request: ${(error as NodeJS.ErrnoException).code ?? error.message}.`).body
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    )
  })

  return {
    sessions,
    petStore: sessions.main,
    server,
    get url() {
      return url
    },
    async listen() {
      if (stateFile) {
        const content = await readStateFile(stateFile)
        for (const [name, snapshot] of Object.entries(content?.sessions ?? {})) {
          if (name === DEFAULT_SESSION) await sessions.main.restore(snapshot)
          else {
            const store = sessions.create()
            await store.restore(snapshot)
            sessions.set(name, store)
          }
        }
      }
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(options.port ?? 4010, host, () => {
          server.off('error', reject)
          resolve()
        })
      })
      const address = server.address() as AddressInfo
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
      url = `http://${shown}:${address.port}`
      return url
    },
    async close() {
      if (saveTimer) {
        clearTimeout(saveTimer)
        saveTimer = undefined
      }
      closing = true
      await new Promise<void>((resolve) => {
        // Keep-alive connections end as soon as their in-flight response is sent.
        const sweep = setInterval(() => server.closeIdleConnections(), 25)
        server.close(() => {
          clearInterval(sweep)
          resolve()
        })
        server.closeIdleConnections()
      })
      await save()
    },
  }
}
