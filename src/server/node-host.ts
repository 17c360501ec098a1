/**
 * A `node:http` host's two ends, shared by the standalone server and the express middleware (and any later node
 * host): reading the request into the core's plain data (the raw body, capped; the URL split into path and query), and
 * the delivery step (a scenario's latency and the server's own, dropped connections, telling the world the answer went
 * out, writing status, headers and body). Fetch hosts have both in `handlers/fetch.ts`.
 */
import { isUtf8 } from 'node:buffer'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { problem } from '../core/errors.js'
import { TIMEOUT_FAULT_MAX_MS } from '../core/faults.js'
import type { ApiRequest, ApiResponse, ApiResult } from '../core/types.js'
import { apiRequestOf, type HostBody, ignoresBody } from '../core/validate.js'

/** A body as node hosts read it: what the core is given (`HostBody`), and whether reading it was given up. */
export interface Body extends HostBody {
  /** The body went past the drain limit: the socket is closed after the answer. */
  readonly abandoned: boolean
}

/** Whether the request carries a body the API reads: not a GET or HEAD one (`apiRequestOf`), which node discards. */
export function hasBody(req: IncomingMessage): boolean {
  if (ignoresBody(req.method ?? 'GET')) return false
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/**
 * Reads the raw body, up to `max` bytes (a larger one is drained up to `drainLimit`, then given up),
 * and calls `done` once. Callbacks rather than a promise: this is the hot path of every POST.
 */
export function readBodyThen(
  req: IncomingMessage,
  max: number,
  drainLimit: number,
  done: (body: Body) => void,
  fail: (error: Error) => void,
): void {
  if (!hasBody(req)) {
    done({ text: undefined, tooLarge: false, abandoned: false })
    return
  }
  let first: Buffer | undefined
  let rest: Buffer[] | undefined
  let size = 0
  let tooLarge = false
  let finished = false
  req.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size > max) {
      tooLarge = true
      first = undefined
      rest = undefined
      if (size > drainLimit && !finished) {
        finished = true
        req.pause()
        done({ text: undefined, tooLarge: true, abandoned: true })
      }
      return
    }
    if (first === undefined) first = chunk
    else {
      rest ??= [first]
      rest.push(chunk)
    }
  })
  req.on('end', () => {
    if (finished) return
    finished = true
    if (tooLarge) return done({ text: undefined, tooLarge, abandoned: false })
    const bytes = rest ? Buffer.concat(rest) : first
    if (bytes !== undefined && !isUtf8(bytes)) return done({ text: undefined, tooLarge, abandoned: false, notUtf8: true })
    done({ text: bytes?.toString('utf8') ?? '', tooLarge, abandoned: false })
  })
  req.on('error', (error) => {
    if (finished) return
    finished = true
    fail(error)
  })
  // A client that hangs up mid-body: the request closes without its end (logged as aborted: docs/spec-decisions.md row 47).
  req.on('close', () => {
    if (finished) return
    finished = true
    fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))
  })
}

export function readBody(req: IncomingMessage, max: number, drainLimit: number): Promise<Body> {
  return new Promise((resolve, reject) => readBodyThen(req, max, drainLimit, resolve, reject))
}

export function splitUrl(raw: string): { path: string; query: string } {
  let url = raw
  // Absolute-form request targets (as sent to proxies): keep the path.
  if (!url.startsWith('/')) {
    const scheme = url.indexOf('://')
    const slash = scheme === -1 ? -1 : url.indexOf('/', scheme + 3)
    url = slash === -1 ? '/' : url.slice(slash)
  }
  const q = url.indexOf('?')
  return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) }
}

const PROTO = '__proto__'

/**
 * `req.headers`, with any header named `__proto__` that node left out of it (it keeps it in `rawHeaders` only): the
 * journal shows what the client sent, as the Fetch hosts do. A scan of the raw names; a copy only when there is one.
 */
export function headersOf(req: Pick<IncomingMessage, 'headers' | 'rawHeaders'>): IncomingMessage['headers'] {
  const raw = req.rawHeaders
  let out: IncomingMessage['headers'] | undefined
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string
    if (name.length !== PROTO.length || name.toLowerCase() !== PROTO) continue
    // No prototype, so `__proto__` is an ordinary property of this object (no accessor): read and written like any other.
    out ??= Object.assign(Object.create(null), req.headers) as IncomingMessage['headers']
    const before = out[PROTO] as string | undefined
    out[PROTO] = before === undefined ? raw[i + 1] : `${before}, ${raw[i + 1]}`
  }
  return out ?? req.headers
}

/** The core's plain request from a `node:http` request and the body read from it (none: `undefined`). */
export function apiRequest(req: IncomingMessage, path: string, query: string, body: HostBody | undefined): ApiRequest {
  return apiRequestOf(req.method ?? 'GET', path, query, headersOf(req), body)
}

/** One request in a node host, and what its answer needs. */
export interface Exchange {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  /** The world answering it, told when the answer went out. */
  readonly world: { markDelivered(response: ApiResponse): void }
  /** Headers added to the answer (CORS); never changed. */
  readonly headers: Readonly<Record<string, string>>
  /** The request body was given up past the drain limit: close the connection after the answer. */
  readonly closeAfter: boolean
}

export interface DeliveryOptions<E extends Exchange> {
  /** Extra latency of each API answer in ms, on top of a scenario's (the server's `--latency`). */
  readonly latency?: (() => number) | undefined
  /** After an answer was written, or dropped (status 0) by a scenario fault. */
  readonly onAnswered?: ((exchange: E, status: number, response: ApiResponse) => void) | undefined
  /** After the mock failed to answer (a bug): the 500 is written already. */
  readonly onFailed?: (exchange: E, error: unknown) => void
  /**
   * Hold the API answers of an event-loop turn and write them together at its end (`setImmediate`), as the standalone
   * server does (decisions/015-answers-of-a-turn-together.md): the writes go out back to back rather than between the
   * reads of the turn, which on a loaded server answers more requests a second with no worse a tail. Off: each answer
   * is written at once.
   */
  readonly batch?: boolean
  /**
   * With `batch`: runs before the held answers are written (the state file writes the turn's changes here); `false`:
   * they could not be written, and each held answer goes through `notKept`.
   */
  readonly beforeAnswers?: (() => boolean) | undefined
  /** What to answer instead of `response` when the turn's changes were not written (`response`, if it says none was kept). */
  readonly notKept?: ((response: ApiResponse) => ApiResponse) | undefined
}

export interface Delivery<E extends Exchange> {
  /** Delivers what the pipeline answered, now or after the latency. */
  deliver(exchange: E, result: ApiResult): void
  /** Writes a response at once, with no faults (answers from outside the pipeline). */
  write(exchange: E, response: ApiResponse): void
  /** Answers 500 with an Error body (or closes the connection when the headers are out already). */
  fail(exchange: E, error: unknown): void
  /** From now on every answer closes its connection (the server is shutting down). */
  closeConnections(): void
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `answer`, holding the answers given during an event-loop turn and writing them at its end, in order, after
 * `beforeAnswers` (decision 015). One failing answer does not hold back the others.
 */
function heldUntilTurnEnd<E>(
  answer: (exchange: E, response: ApiResponse) => void,
  fail: (exchange: E, error: unknown) => void,
  { beforeAnswers, notKept }: Pick<DeliveryOptions<Exchange>, 'beforeAnswers' | 'notKept'>,
): (exchange: E, response: ApiResponse) => void {
  let exchanges: E[] = []
  let responses: ApiResponse[] = []
  const release = (): void => {
    const held = exchanges
    const answers = responses
    exchanges = []
    responses = []
    let kept = false
    try {
      kept = beforeAnswers?.() ?? true
    } catch (error) {
      console.error('[petstore-mock] Could not finish the changes before the answers:', error)
    }
    for (let i = 0; i < held.length; i++) {
      const exchange = held[i] as E
      try {
        const response = answers[i] as ApiResponse
        answer(exchange, kept || notKept === undefined ? response : notKept(response))
      } catch (error) {
        fail(exchange, error)
      }
    }
  }
  return (exchange, response) => {
    if (exchanges.length === 0) setImmediate(release)
    exchanges.push(exchange)
    responses.push(response)
  }
}

/**
 * @example
 * const delivery = createNodeDelivery({ onAnswered: (exchange, status) => log(exchange, status) })
 * delivery.deliver({ req, res, world, headers: {}, closeAfter: false }, world.handle(request))
 */
export function createNodeDelivery<E extends Exchange>(options: DeliveryOptions<E> = {}): Delivery<E> {
  const { latency, onAnswered, onFailed, batch = false } = options
  let closing = false

  // The last body's length as text: a client polling one list gets the same body string again, so its byte length is
  // counted once (node-host.test.ts: repeated, changed and same-length bodies each get their own Content-Length).
  let lastBody = ''
  let lastLength = '0'
  const lengthOf = (body: string): string => {
    if (body !== lastBody) {
      lastBody = body
      lastLength = String(Buffer.byteLength(body))
    }
    return lastLength
  }

  const write = (exchange: E, response: ApiResponse): void => {
    const { res } = exchange
    // The core's headers object is this response's own: add to it rather than copy it (hot path).
    const headers: Record<string, string> = response.headers
    for (const name in exchange.headers) headers[name] = exchange.headers[name] as string
    headers['content-length'] = lengthOf(response.body)
    if (exchange.closeAfter || closing) headers.connection = 'close'
    res.writeHead(response.status, headers)
    res.end(response.body)
    if (exchange.closeAfter) res.on('finish', () => exchange.req.destroy())
  }

  const drop = (exchange: E, response: ApiResponse): void => {
    const { res } = exchange
    if (response.drop === 'timeout') {
      // No answer until the client gives up (or the cap), then the connection is dropped.
      const timer = setTimeout(() => res.destroy(), TIMEOUT_FAULT_MAX_MS)
      res.on('close', () => clearTimeout(timer))
    } else res.destroy()
  }

  const answerNow = (exchange: E, response: ApiResponse): void => {
    if (response.drop === undefined) write(exchange, response)
    else drop(exchange, response)
    exchange.world.markDelivered(response)
    onAnswered?.(exchange, response.drop === undefined ? response.status : 0, response)
  }

  const answer: (exchange: E, response: ApiResponse) => void = batch
    ? heldUntilTurnEnd(answerNow, (exchange, error) => fail(exchange, error), options)
    : answerNow

  const fail = (exchange: E, error: unknown): void => {
    const { res } = exchange
    if (res.headersSent || res.destroyed) res.destroy()
    else write(exchange, problem('internal_error', 'The mock failed to answer this request; the server log has the details.'))
    onFailed?.(exchange, error)
  }

  return {
    write,
    fail,
    closeConnections: () => {
      closing = true
    },
    deliver(exchange, result) {
      if (!(result instanceof Promise)) {
        const ms = (result.delayMs ?? 0) + (latency?.() ?? 0)
        if (ms <= 0) return answer(exchange, result)
        wait(ms)
          .then(() => answer(exchange, result))
          .catch((error: unknown) => fail(exchange, error))
        return
      }
      result
        .then(async (response) => {
          const ms = (response.delayMs ?? 0) + (latency?.() ?? 0)
          if (ms > 0) await wait(ms)
          answer(exchange, response)
        })
        .catch((error: unknown) => fail(exchange, error))
    },
  }
}
