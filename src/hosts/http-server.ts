/**
 * The standalone server: `node:http` calling the world directly on the hot path
 * (decisions/004-core-over-plain-data.md), express for the admin API under `/__mock`, sessions,
 * CORS, the user's own msw handlers, latency, a state file, and one log line per request.
 * This file puts the parts together and runs the server's life: listen, malformed requests, close.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { RequestHandler } from 'msw'
import { problem } from '../core/errors.js'
import { between, createRandom } from '../core/random.js'
import { DEFAULT_MAX_BODY_BYTES } from '../spec.js'
import type { World } from '../world/create-world.js'
import type { PetStoreOptions } from '../world/options.js'
import type { AdminOptions } from './admin/app.js'
import type { CorsOrigins } from './cors.js'
import { createNodeDelivery } from './node-delivery.js'
import { createRequestLog, type LogFormat } from './request-log.js'
import { createRequestRouter, type ServerExchange } from './request-router.js'
import { createSessions, type Sessions } from './sessions.js'
import { createStateSaver } from './state-saver.js'

export type { LogFormat } from './request-log.js'

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
  readonly petStore: World
  readonly server: Server
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|\[::1\])$/

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host)
}

/** The server's `--latency`, drawn from a generator seeded by the world's seed. */
function latencyOf(options: PetStoreServerOptions): (() => number) | undefined {
  const { latency } = options
  if (latency === undefined) return undefined
  if (typeof latency === 'number') return () => latency
  const random = createRandom((options.seed ?? 1) ^ 0x5eed)
  return () => between(random, latency.min, latency.max)
}

/** Requests the HTTP parser refuses (an unknown method, a malformed header) still get an Error body. */
function answerMalformed(error: Error, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy(error)
  const text = problem('bad_request', `Malformed HTTP request: ${(error as NodeJS.ErrnoException).code ?? error.message}.`).body
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  )
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void

/** The admin app, built on the first admin call: express is not loaded at start-up. */
function lazyAdmin(options: AdminOptions): () => Promise<NodeHandler> {
  let admin: Promise<NodeHandler> | undefined
  return () => {
    admin ??= import('./admin/app.js').then(({ createAdminApp }) => {
      const app = createAdminApp(options)
      return (req: IncomingMessage, res: ServerResponse) => app(req, res)
    })
    return admin
  }
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
  let url = ''
  let closing = false
  const sessions = createSessions(options, options.maxSessions ?? 1_000)
  const saver = createStateSaver(options.stateFile, sessions)
  const log = createRequestLog(options.log ?? 'pretty', options.write ?? ((line: string) => process.stdout.write(`${line}\n`)))
  const delivery = createNodeDelivery<ServerExchange>({
    latency: latencyOf(options),
    closing: () => closing,
    onAnswered(exchange, status, response) {
      saver.changed()
      log.line(exchange, status, response.meta?.plan, response.meta?.fault)
    },
    onFailed(exchange, error) {
      console.error('[petstore-mock] Request failed:', error)
      log.line(exchange, 500, undefined, 'error')
    },
  })

  const adminToken =
    options.adminToken !== undefined && options.adminToken !== '' ? options.adminToken : isLoopback(host) ? undefined : false
  const adminApp = lazyAdmin({ sessions, token: adminToken, serverUrl: () => url, startedAt: Date.now(), onChange: saver.changed })

  const router = createRequestRouter({
    sessions,
    corsOrigin: options.corsOrigin ?? '*',
    userHandlers: options.userHandlers ?? [],
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    drainLimit: options.drainLimitBytes ?? 64 * 1024 * 1024,
    delivery,
    log,
    admin: adminApp,
    url: () => url,
  })
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, router)
  server.on('clientError', answerMalformed)

  return {
    sessions,
    petStore: sessions.main,
    server,
    get url() {
      return url
    },
    async listen() {
      await saver.load()
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
      await saver.flush()
    },
  }
}
