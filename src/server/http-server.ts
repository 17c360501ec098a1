/**
 * The standalone server: `node:http` calling the world directly on the hot path
 * (decisions/004-core-over-plain-data.md), express for the admin API under `/__mock`, sessions,
 * CORS, the user's own msw handlers, latency, a state file, and one log line per request.
 * This file puts the parts together and runs the server's life: listen, malformed requests, close.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RequestHandler } from 'msw'
import { DEFAULT_MAX_BODY_BYTES } from '../spec.js'
import type { ServerWorld } from '../world/create-world.js'
import type { PetStoreOptions } from '../world/options.js'
import { isLoopback } from './admin/access.js'
import { createAdminReads } from './admin/admin-reads.js'
import type { AdminOptions } from './admin/app.js'
import { createEventStreams } from './admin/event-streams.js'
import type { CorsOrigins } from './cors.js'
import { INTEGRATIONS, loadIntegration } from './integrations.js'
import { createServerMetrics } from './metrics.js'
import { createRequestLog, type LogFormat } from './request-log.js'
import { createRequestRouter } from './request-router.js'
import { serverDelivery } from './server-delivery.js'
import { createSessions, type Sessions } from './sessions.js'
import { createStateSaver } from './state/saver.js'
import { addTransportAnswers } from './transport-answers.js'

// Not `import { createServer } from 'node:http'`: on Node 22 and later an ES import of node:http builds its whole
// namespace, whose WebSocket getter loads undici, a fetch the server never uses (a quarter of its start-up CPU); the
// module object from `getBuiltinModule` runs no getter until it is read (test/cli/cli.test.ts, "start-up").
const { createServer } = process.getBuiltinModule('node:http')

export { isLoopback } from './admin/access.js'
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
  /**
   * Where to keep the sessions across restarts. Every acknowledged change is appended to `FILE.log` before
   * its answer is sent; the snapshot in FILE is rewritten now and then and at shutdown.
   */
  stateFile?: string
  /** With `stateFile`: each change reaches the disk (fsync) before its answer, not only the OS. Default false. */
  fsync?: boolean
  /** One line per request: `pretty` (default), `json` or `silent`. */
  log?: LogFormat
  /** Where log lines go. Default stdout. */
  write?: (line: string) => void
  /** Live sessions kept at most (least recently used evicted). Default 1,000. */
  maxSessions?: number
  /** Bodies over `maxBodyBytes` are drained up to this many bytes before the 413; beyond, the socket is closed. Default 64 MiB. */
  drainLimitBytes?: number
  /** A request (headers and body) that has not arrived whole after this many ms is answered 408. Default 30,000. */
  requestTimeoutMs?: number
  /**
   * The memory all journal reads under way share (`GET /__mock/requests`, the HAR export, the event stream's replay),
   * 1 MiB each: past it a read is answered 503 `too_many_admin_reads`. At least 1 MiB. Default 32 MiB.
   */
  adminReadMaxBytes?: number
  /**
   * Keep every session's world in this Redis (`redis://host:6379`), so several servers pointed at it behave as one
   * (docs/replicas.md). Not with `stateFile`: Redis holds the state.
   */
  redis?: string
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
  readonly petStore: ServerWorld
  readonly server: Server
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void

/** The admin app, built on the first admin call: express is not loaded at start-up. */
function lazyAdmin(options: AdminOptions): () => Promise<NodeHandler> {
  let admin: Promise<NodeHandler> | undefined
  return () => {
    admin ??= loadIntegration('express', INTEGRATIONS.express, () => import('./admin/app.js')).then(({ createAdminApp }) =>
      createAdminApp(options),
    )
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
  const saver = createStateSaver(options.stateFile, { fsync: options.fsync ?? false, sessions: () => sessions })
  const own = createSessions(options, options.maxSessions ?? 1_000, saver.dataFor, undefined, saver.evicted)
  const { sessions, ...store } = sessionStore(options, own)
  const metrics = createServerMetrics(sessions)
  const log = requestLogOf(options)
  // Each answer handed over is told once, to the metrics and (unless silent) the log line.
  const delivery = serverDelivery(options, saver, log, log.silent ? [metrics.answered] : [metrics.answered, log.answered])
  const adminToken =
    options.adminToken !== undefined && options.adminToken !== '' ? options.adminToken : isLoopback(host) ? undefined : false
  const streams = createEventStreams()
  const requestTimeout = options.requestTimeoutMs ?? 30_000
  // A client that takes nothing of a journal read for as long as a request may take to arrive is cut off.
  const reads = createAdminReads({ maxBytes: options.adminReadMaxBytes, stallMs: requestTimeout })
  const admin = lazyAdmin({
    sessions,
    streams,
    reads,
    token: adminToken,
    host,
    serverUrl: () => url,
    maxNameLength: options.maxNameLength,
    startedAt: Date.now(),
    onChange: saver.logState,
    degraded: () => saver.failure ?? store.problem(),
    storeProblem: store.problem,
    metrics,
  })
  const router = createRequestRouter({
    // The router reads its sessions directly, not through `sessions` (which follows the shared ones once connected).
    sessions: own,
    corsOrigin: options.corsOrigin ?? '*',
    userHandlers: options.userHandlers ?? [],
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    drainLimit: options.drainLimitBytes ?? 64 * 1024 * 1024,
    delivery,
    log,
    admin,
    url: () => url,
  })
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(10_000, requestTimeout),
      keepAliveTimeout: 5_000,
      // Node checks the timeouts this often: often enough for the timeout asked for.
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(requestTimeout / 4))),
      // The router answers an HTTP/1.1 request without Host (RFC 9112, section 3.2) with an Error body, not node's bare 400.
      requireHostHeader: false,
    },
    router,
  )
  addTransportAnswers(server, router)

  return {
    sessions,
    petStore: sessions.main,
    server,
    get url() {
      return url
    },
    async listen() {
      const shared = await store.start()
      if (shared) router.useSessions(shared)
      await saver.load()
      url = await listenOn(server, options.port ?? 4010, host)
      return url
    },
    async close() {
      delivery.closeConnections()
      streams.closeAll() // event streams never end by themselves: the server would wait for them forever
      await closeGently(server)
      await saver.close()
      await store.close()
    },
  }
}

/** The server's request log (`log`, `write`). */
const requestLogOf = (options: PetStoreServerOptions) =>
  createRequestLog(options.log ?? 'pretty', options.write ?? ((line: string) => process.stdout.write(`${line}\n`)))

/**
 * The server's sessions: in memory, or with `--redis` the shared ones, made once connected (`start`, from `listen`;
 * the Redis module is loaded only then). Until then the in-memory ones stand in, unused.
 */
function sessionStore(options: PetStoreServerOptions, own: Sessions) {
  let shared: import('./redis/index.js').SharedSessions | undefined
  const current = () => shared?.sessions ?? own
  const sessions: Sessions = {
    get: (name, replaying) => current().get(name, replaying),
    has: (name) => current().has(name),
    drop: (name) => current().drop(name),
    trim: () => current().trim(),
    get main() {
      return current().main
    },
    names: () => current().names(),
    get size() {
      return current().size
    },
    get max() {
      return current().max
    },
    get journalBudget() {
      return current().journalBudget
    },
  }
  return {
    sessions,
    /** Connects the shared sessions, when there are any, and gives them. */
    async start(): Promise<Sessions | undefined> {
      if (options.redis === undefined) return undefined
      const { startSharedSessions } = await import('./redis/index.js')
      shared = await startSharedSessions(options.redis, options, options.maxSessions ?? 1_000)
      return shared.sessions
    },
    problem: () => shared?.problem(),
    close: async () => shared?.close(),
  }
}

/** Starts listening; resolves with the base URL. */
async function listenOn(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return `http://${shown}:${address.port}`
}

/** Stops accepting and lets in-flight requests finish; keep-alive connections end as soon as their response is sent. */
function closeGently(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 25)
    server.close(() => {
      clearInterval(sweep)
      resolve()
    })
    server.closeIdleConnections()
  })
}
