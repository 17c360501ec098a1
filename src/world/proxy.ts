/**
 * `--proxy URL` (docs/spec-decisions.md rows 53-53b): requests under the base path that the mock does not define (the
 * store group, other paths and methods the spec leaves out) go to a real deployment, with their method, headers
 * (Authorization included) and body; its answer is relayed as it is, and journaled. Everything the mock defines stays
 * mocked. Every failure of the upstream is an Error body, never a 500 (test/http/proxy-upstream-failures.test.ts):
 * down, reset or a bad answer, before or during its body, 502; too slow, headers or body, 504; a body over the cap,
 * 502. The upstream URL is built from the normalised path, and a path that leaves the base never reaches the upstream
 * (test/http/proxy-path-escape.test.ts).
 */
import type { Api } from '../core/api.js'
import { matchRoute } from '../core/api.js'
import { PetStoreMockError, problem } from '../core/errors.js'
import type { ApiRequest, ApiResponse } from '../core/types.js'
import { OPERATIONS } from '../spec.js'

export interface ProxyOptions {
  /** The upstream's base address, e.g. `https://staging.example/v1`: the path after the mock's base path is appended. */
  readonly target: string
  /** The mock's base path, e.g. `/v1`. */
  readonly basePath: string
  /** How long the upstream may take to answer, its body included. */
  readonly timeoutMs: number
  /** The largest upstream body relayed, in bytes: a larger one is answered 502. */
  readonly maxBodyBytes: number
  /** The fetch that reaches the upstream (in-process: one msw does not intercept). */
  readonly fetch: typeof fetch
}

const DEFINED = new Set(OPERATIONS.filter((operation) => operation.defined).map((operation) => operation.id))
/** Headers that belong to one connection, or that the relay changes (the body is relayed decoded). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'host', 'upgrade'])
const UNRESERVED = /^[A-Za-z0-9._~-]$/

/** Percent-encoded unreserved characters decoded, other escapes upper-cased: RFC 3986 section 6.2.2.2. */
function decodeUnreserved(segment: string): string {
  if (!segment.includes('%')) return segment
  return segment.replace(/%[0-9A-Fa-f]{2}/g, (encoded) => {
    const char = String.fromCharCode(Number.parseInt(encoded.slice(1), 16))
    return UNRESERVED.test(char) ? char : encoded.toUpperCase()
  })
}

/** A segment that is a dot segment once its encoded slashes are read as slashes, as some servers read them (`..%2F..`). */
function hidesDotSegment(segment: string): boolean {
  return /%2F|%5C/.test(segment) && segment.split(/%2F|%5C/).some((part) => part === '.' || part === '..')
}

/**
 * A path normalised as the upstream's URL parser will read it: unreserved characters decoded (`%2e` is `.`), a
 * backslash read as a slash (the WHATWG URL parser does so for http and https), then RFC 3986 section 5.2.4
 * remove_dot_segments. `undefined` for a path with a dot segment behind encoded slashes: no form of it is safe to send.
 *
 * @example
 * normalisePath('/v1/%2e%2e/%2e%2e/x') // '/x'
 */
export function normalisePath(path: string): string | undefined {
  const segments = path.split(/[/\\]/)
  const out: string[] = []
  for (let i = 1; i < segments.length; i++) {
    const segment = decodeUnreserved(segments[i] as string)
    if (hidesDotSegment(segment)) return undefined
    const last = i === segments.length - 1
    if (segment === '..') out.pop()
    if (segment !== '.' && segment !== '..') out.push(segment)
    else if (last) out.push('')
  }
  return `/${out.join('/')}`
}

const isUnder = (path: string, base: string): boolean => base === '' || path === base || path.startsWith(`${base}/`)

/** The upstream URL of a path under the base, or `undefined` when the URL the fetch would send leaves the target's base. */
function upstreamUrl(rest: string, query: string, options: ProxyOptions): string | undefined {
  const target = new URL(options.target)
  let url: URL
  try {
    url = new URL(`${options.target}${rest}${query ? `?${query}` : ''}`)
  } catch {
    return undefined
  }
  // The same parser as the fetch's: what it would send is what is checked (test/http/proxy-path-escape.test.ts).
  const base = target.pathname.replace(/\/+$/, '')
  return url.origin === target.origin && isUnder(url.pathname, base) ? url.href : undefined
}

function outgoingHeaders(request: ApiRequest): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-mock-')) continue
    for (const item of typeof value === 'string' ? [value] : value) headers.append(name, item)
  }
  return headers
}

/** A byte count as people read it: `8 MiB`, `64 KiB`, `1000 bytes`. */
function bytesText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`
}

class BodyTooLarge extends PetStoreMockError {
  override readonly name = 'BodyTooLarge'
  readonly code = 'upstream_body_too_large'
}

/** The body as text, read chunk by chunk and given up (the upstream's connection with it) past `max` bytes. */
async function readCapped(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > max || !response.body) {
    await response.body?.cancel().catch(() => undefined)
    if (declared > max) throw new BodyTooLarge()
    return ''
  }
  const reader = response.body.getReader()
  // The chunks are kept as bytes and decoded once, whole: a body given up past the cap never becomes a string.
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) {
      const decoder = new TextDecoder()
      return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode()
    }
    size += value.byteLength
    if (size > max) {
      chunks.length = 0
      await reader.cancel().catch(() => undefined)
      throw new BodyTooLarge()
    }
    chunks.push(value)
  }
}

/** What an error says, with its cause (undici's `terminated` says why in its cause: `other side closed`). */
function reason(error: unknown): string {
  const { message, cause } = error as Error & { cause?: unknown }
  return cause instanceof Error && cause.message !== message ? `${message} (${cause.message})` : message
}

/** The Error body of a failed exchange with the upstream: 504 when the time ran out, 502 for anything else. */
function failed(error: unknown, request: ApiRequest, options: ProxyOptions, during: 'answer' | 'body'): ApiResponse {
  const { target, timeoutMs, maxBodyBytes } = options
  const asked = `${request.method} ${request.path}`
  if (error instanceof BodyTooLarge)
    return problem(
      'bad_gateway',
      `The --proxy upstream's answer to ${asked} is larger than ${bytesText(maxBodyBytes)}, the most the mock relays (proxyMaxBodyBytes).`,
    )
  if ((error as Error).name === 'TimeoutError')
    return problem(
      'gateway_timeout',
      during === 'answer'
        ? `The --proxy upstream ${target} did not answer ${asked} within ${timeoutMs} ms.`
        : `The --proxy upstream ${target} did not finish its answer to ${asked} within ${timeoutMs} ms.`,
    )
  return problem(
    'bad_gateway',
    during === 'answer'
      ? `The --proxy upstream ${target} could not be reached: ${reason(error)}.`
      : `The --proxy upstream ${target} broke off its answer to ${asked}: ${reason(error)}.`,
  )
}

async function forward(request: ApiRequest, url: string, options: ProxyOptions): Promise<ApiResponse> {
  const meta = { upstream: options.target, rule: 'proxy.upstream' as const }
  let response: Response
  try {
    response = await options.fetch(url, {
      method: request.method,
      headers: outgoingHeaders(request),
      ...(request.body === undefined || request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
      redirect: 'manual',
      // One limit for the whole exchange: a body that stalls after the headers times out too.
      signal: AbortSignal.timeout(options.timeoutMs),
    })
  } catch (error) {
    return { ...failed(error, request, options, 'answer'), meta }
  }
  let body: string
  try {
    body = await readCapped(response, options.maxBodyBytes)
  } catch (error) {
    return { ...failed(error, request, options, 'body'), meta }
  }
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) headers[name] = value
  })
  return { status: response.status, headers, body, meta }
}

/**
 * @example
 * const api = withProxy(next, { target: 'https://staging.example/v1', basePath: '/v1', timeoutMs: 10_000, maxBodyBytes: 8 * 1024 * 1024, fetch })
 */
export function withProxy(next: Api, options: ProxyOptions): Api {
  const { basePath } = options
  return {
    handle(request) {
      // Outside the base: the mock's own (404 for an unknown path, the admin API, ...).
      if (!isUnder(request.path, basePath)) return next.handle(request)
      const path = normalisePath(request.path)
      // A path that leaves the base once normalised is answered as the mock answers that path.
      if (path === undefined) return next.handle(request)
      if (!isUnder(path, basePath)) return next.handle({ ...request, path })
      const rest = path.slice(basePath.length)
      const route = matchRoute(request.method, rest)
      if (route.ok && DEFINED.has(route.operation)) return next.handle(request)
      const url = upstreamUrl(rest, request.query, options)
      return url === undefined ? next.handle({ ...request, path }) : forward(request, url, options)
    },
  }
}
