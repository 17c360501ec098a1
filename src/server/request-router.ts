/**
 * The standalone server's way for each request: CORS preflight, the admin API under `/__mock`, or
 * the session's world (`X-Mock-Session`), with the user's msw handlers in front when loaded, then
 * the shared node delivery step. The hot path (no user handlers) reads no body for a GET and
 * answers synchronously.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RequestHandler } from 'msw'
import { problem } from '../core/errors.js'
import { SESSION_NAME_RULE } from '../core/refusals.js'
import type { ServerWorld } from '../world/create-world.js'
import { type CorsOrigins, corsHeaders, preflightHeaders } from './cors.js'
import { IntegrationMissingError } from './integrations.js'
import { apiRequest, type Body, type Delivery, type Exchange, hasBody, readBody, readBodyThen, splitUrl } from './node-host.js'
import type { LoggedRequest, RequestLog } from './request-log.js'
import type { Sessions } from './sessions.js'
import { runUserHandlers, toFetchRequest } from './user-handlers.js'

/** One request on its way through the server. */
export interface ServerExchange extends Exchange, LoggedRequest {
  readonly path: string
  readonly query: string
  /** The session's world, once chosen (the default world until then). */
  world: ServerWorld
  closeAfter: boolean
}

export interface RouterParts {
  readonly sessions: Sessions
  readonly corsOrigin: CorsOrigins
  readonly userHandlers: readonly RequestHandler[]
  readonly maxBodyBytes: number
  readonly drainLimit: number
  readonly delivery: Delivery<ServerExchange>
  readonly log: RequestLog
  /** The admin API's handler, loaded on first use. */
  readonly admin: () => Promise<(req: IncomingMessage, res: ServerResponse) => void>
  /** The server's base URL, for the Fetch requests user handlers see. */
  readonly url: () => string
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>
const INVALID_SESSION = `X-Mock-Session must be ${SESSION_NAME_RULE}.`

/** Offers the request to the user's msw handlers; `true` when one of them answered it. */
async function answeredByUserHandlers(exchange: ServerExchange, body: Body, parts: RouterParts): Promise<boolean> {
  const { req, res, headers } = exchange
  const result = await runUserHandlers(parts.userHandlers, toFetchRequest(req, parts.url() || 'http://127.0.0.1', body.text))
  if (result.kind === 'none') return false
  if (result.kind === 'network-error') {
    res.socket?.destroy()
    parts.log.line(exchange, 0, undefined, 'user handler: network error')
    return true
  }
  const out: Record<string, string> = { ...headers }
  result.response.headers.forEach((value, name) => {
    out[name] = value
  })
  const buffer = Buffer.from(await result.response.arrayBuffer())
  out['content-length'] = String(buffer.length)
  res.writeHead(result.response.status, out)
  res.end(buffer)
  parts.log.line(exchange, result.response.status, undefined, 'user handler')
  return true
}

/** A CORS preflight: answered without a key or quota. */
function answerPreflight(exchange: ServerExchange, parts: RouterParts): void {
  const { req, res } = exchange
  const headers = preflightHeaders(parts.corsOrigin, req.headers.origin, req.headers['access-control-request-headers'])
  res.writeHead(204, { ...headers, 'content-length': 0 })
  res.end()
  parts.log.line(exchange, 204, undefined, 'preflight')
}

/** Hands the request to the admin API (express, loaded on first use). */
function toAdmin(exchange: ServerExchange, parts: RouterParts): void {
  const { req, res, headers } = exchange
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
  res.on('finish', () => parts.log.line(exchange, res.statusCode, undefined, 'admin'))
  parts.admin().then(
    (app) => app(req, res),
    (error: unknown) =>
      // Without express, every admin call says what to install (decision 029); the log line comes from `finish`.
      error instanceof IntegrationMissingError
        ? parts.delivery.write(exchange, problem('integration_missing', `${error.message}.`))
        : parts.delivery.fail(exchange, error),
  )
}

/**
 * RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without Host and to any request with more than
 * one Host line (before anything else); here with the Error body, where node's own answer has none (node keeps the
 * first Host in `req.headers`, every line in `rawHeaders`). A request whose absolute-form target (section 3.2.2) names
 * another authority than its Host is refused too: the admin API's loopback rule reads the Host (spec decision 67).
 * Answers it and says so.
 */
function refusedHost(exchange: ServerExchange, { delivery, log }: Pick<RouterParts, 'delivery' | 'log'>): boolean {
  const message = hostProblem(exchange.req)
  if (message === undefined) return false
  exchange.closeAfter = true
  delivery.write(exchange, problem('bad_request', message))
  log.line(exchange, 400)
  return true
}

function hostProblem(req: IncomingMessage): string | undefined {
  let lines = 0
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]?.toLowerCase() === 'host') lines++
  if (lines > 1) return `A request carries one Host header (RFC 9112, section 3.2); this one has ${lines}.`
  const host = req.headers.host
  if (host === undefined) {
    if (req.httpVersionMajor !== 1 || req.httpVersionMinor < 1) return undefined
    return 'An HTTP/1.1 request needs a Host header (RFC 9112, section 3.2).'
  }
  const target = req.url ?? ''
  if (target.startsWith('/') || target === '*') return undefined
  // Both read as a URL's authority, so `127.0.0.1:80` and `http://127.0.0.1/` name the same one.
  const authorityOf = (text: string) => {
    try {
      return new URL(text).host
    } catch {
      return undefined
    }
  }
  const authority = authorityOf(target)
  if (authority === undefined || authority === authorityOf(`http://${host}`)) return undefined
  return `The request's target names ${JSON.stringify(authority)} and its Host header ${JSON.stringify(host)}: send the path alone (GET /v1/pets) with Host, or one authority in both (RFC 9112, section 3.2.2).`
}

/** The router: the server's `request` handler, and its `checkContinue` handler (`Expect: 100-continue`). */
export type RequestRouter = ((req: IncomingMessage, res: ServerResponse) => void) & {
  readonly checkContinue: (req: IncomingMessage, res: ServerResponse) => void
  /** Routes to these sessions from now on (the shared ones of `--redis`, once connected). */
  readonly useSessions: (sessions: Sessions) => void
}

/**
 * @example
 * const router = createRequestRouter(parts)
 * const server = createServer(router).on('checkContinue', router.checkContinue)
 */
export function createRequestRouter(parts: RouterParts): RequestRouter {
  const { userHandlers, maxBodyBytes, drainLimit, delivery, log } = parts
  let { sessions } = parts // replaced by `useSessions` once the shared ones (`--redis`) are connected

  const serve = (exchange: ServerExchange, body: Body | undefined): void => {
    const { req, path, query } = exchange
    if (body?.abandoned) exchange.closeAfter = true
    delivery.deliver(exchange, exchange.world.handle(apiRequest(req, path, query, body)))
  }

  /** With user handlers loaded: read the body, offer the request to them first, then to the world. */
  const serveWithUserHandlers = async (exchange: ServerExchange): Promise<void> => {
    const body = await readBody(exchange.req, maxBodyBytes, drainLimit)
    if (!body.tooLarge && (await answeredByUserHandlers(exchange, body, parts))) return
    serve(exchange, body)
  }

  /** `known`: the body's fate decided before reading it (an `Expect: 100-continue` declaring too many bytes). */
  const route = (exchange: ServerExchange, known?: Body): void => {
    const { req, path } = exchange
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) return void answerPreflight(exchange, parts)
    if (path === '/__mock' || path.startsWith('/__mock/')) return void toAdmin(exchange, parts)
    const session = req.headers['x-mock-session'] as string | undefined
    const world = session === undefined ? sessions.main : sessions.get(session)
    if (!world) {
      delivery.write(exchange, problem('invalid_session', INVALID_SESSION))
      log.line(exchange, 400)
      return
    }
    exchange.world = world
    if (known !== undefined) return void serve(exchange, known)
    if (userHandlers.length > 0) {
      serveWithUserHandlers(exchange).catch((error: unknown) => delivery.fail(exchange, error))
      return
    }
    if (!hasBody(req)) return void serve(exchange, undefined)
    readBodyThen(
      req,
      maxBodyBytes,
      drainLimit,
      (body) => {
        try {
          serve(exchange, body)
        } catch (error) {
          delivery.fail(exchange, error)
        }
      },
      (error) => delivery.fail(exchange, error),
    )
  }

  /** `expectsContinue`: the client waits for 100 Continue before it sends the body (`Expect: 100-continue`). */
  const start = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void => {
    const exchange = newExchange(req, res, parts, sessions.main)
    try {
      if (refusedHost(exchange, parts)) return
      // RFC 9110 section 10.1.1: a final status instead of 100 Continue for a body that would be refused; it was never
      // asked for, so the connection closes after the answer (test/http/expect-continue-too-large.test.ts).
      const refused = expectsContinue && tooLargeToContinue(req, exchange.path, maxBodyBytes)
      if (expectsContinue && !refused) res.writeContinue()
      exchange.closeAfter = refused
      route(exchange, refused ? TOO_LARGE_UNREAD : undefined)
    } catch (error) {
      delivery.fail(exchange, error)
    }
  }

  const router = (req: IncomingMessage, res: ServerResponse): void => start(req, res, false)
  return Object.assign(router, {
    checkContinue: (req: IncomingMessage, res: ServerResponse): void => start(req, res, true),
    useSessions: (next: Sessions): void => {
      sessions = next
    },
  })
}

/** A request's exchange as it arrives: the default world until its session is chosen. */
function newExchange(req: IncomingMessage, res: ServerResponse, parts: RouterParts, world: ServerWorld): ServerExchange {
  const origin = req.headers.origin
  const { path, query } = splitUrl(req.url ?? '/')
  return {
    req,
    res,
    path,
    query,
    started: parts.log.start(),
    headers: origin === undefined ? NO_HEADERS : corsHeaders(parts.corsOrigin, origin),
    world,
    closeAfter: false,
  }
}

/** The body of a request answered before it was sent: too large, never read. */
const TOO_LARGE_UNREAD: Body = Object.freeze({ text: undefined, tooLarge: true, abandoned: true })

/** An API request whose `Content-Length` is over the body limit: answered at once rather than asked for its body. */
function tooLargeToContinue(req: IncomingMessage, path: string, maxBodyBytes: number): boolean {
  if (path === '/__mock' || path.startsWith('/__mock/')) return false
  const length = Number(req.headers['content-length'])
  return Number.isFinite(length) && length > maxBodyBytes
}
