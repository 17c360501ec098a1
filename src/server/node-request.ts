/**
 * Reading a `node:http` request into the core's plain data: the raw body (capped) and the URL split
 * into path and query. Shared by the standalone server and the express middleware.
 */
import { isUtf8 } from 'node:buffer'
import type { IncomingMessage } from 'node:http'
import type { ApiRequest } from '../core/types.js'
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
