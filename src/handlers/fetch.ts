/**
 * The Fetch adapter: Fetch `Request` -> plain `ApiRequest`, plain `ApiResponse` -> `Response`, and
 * the delivery step of Fetch hosts (a scenario's latency and dropped answers). Used by the msw
 * handlers and by `petStore.fetch`; imports no msw, so a world's `fetch` needs none.
 */
import { TIMEOUT_FAULT_MAX_MS } from '../core/faults.js'
import type { ApiRequest, ApiResponse, ApiResult } from '../core/types.js'

const NO_BODY = new Set(['GET', 'HEAD'])
/** Base for relative URLs handed to `petStore.fetch('/v1/pets')`. */
const RELATIVE_BASE = 'http://petstore.mock'

/** Reads a Fetch `Request` into the core's plain request. */
export async function fromRequest(request: Request): Promise<ApiRequest> {
  const url = new URL(request.url)
  const headers: Record<string, string> = {}
  request.headers.forEach((value, name) => {
    headers[name] = value
  })
  const body = request.body === null || NO_BODY.has(request.method) ? undefined : await request.text()
  return { method: request.method, path: url.pathname, query: url.search.slice(1), headers, body }
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * The delivery step of Fetch hosts: applies a scenario's latency and dropped answers, tells the
 * world the answer went out, and writes the response (at once in the common case, with no fault).
 * A `network-error` is `onDrop()`; a `timeout` waits until `signal` aborts (or the cap).
 */
export function deliverFetch(
  response: ApiResponse,
  signal: AbortSignal | undefined,
  onDrop: () => Response | never,
  onDelivered: (response: ApiResponse) => void,
): Response | Promise<Response> {
  if (response.delayMs === undefined && response.drop === undefined) {
    onDelivered(response)
    return toResponse(response)
  }
  return deliverLater(response, signal, onDrop, onDelivered)
}

async function deliverLater(
  response: ApiResponse,
  signal: AbortSignal | undefined,
  onDrop: () => Response | never,
  onDelivered: (response: ApiResponse) => void,
): Promise<Response> {
  try {
    if (response.delayMs) await wait(response.delayMs, signal)
    if (response.drop === 'timeout') await wait(TIMEOUT_FAULT_MAX_MS, signal)
  } finally {
    onDelivered(response)
  }
  return response.drop === undefined ? toResponse(response) : onDrop()
}

const networkError = (): never => {
  throw new TypeError('fetch failed', { cause: new Error('[petstore-mock] Connection reset by a scenario fault (network-error)') })
}

/** Writes the core's plain response as a Fetch `Response`. */
function toResponse(response: ApiResponse): Response {
  return new Response(response.status === 204 || response.status === 304 ? null : response.body, {
    status: response.status,
    headers: response.headers,
  })
}

function plainHeaders(init: HeadersInit | undefined): Record<string, string> | undefined {
  if (init === undefined) return {}
  if (init instanceof Headers || Array.isArray(init)) return undefined
  const headers: Record<string, string> = {}
  for (const name of Object.keys(init)) {
    const value = (init as Record<string, string | undefined>)[name]
    if (value !== undefined) headers[name.toLowerCase()] = String(value)
  }
  return headers
}

/**
 * A `fetch` function served by `handle` directly, with no interception. The common call shape,
 * `fetch(url, { method, headers: {...}, body: string })`, skips building a `Request`.
 */
export function createFetch(
  handle: (request: ApiRequest) => ApiResult,
  onDelivered: (response: ApiResponse) => void = () => {},
): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    init?.signal?.throwIfAborted()
    if (typeof input === 'string' || input instanceof URL) {
      const headers = plainHeaders(init?.headers)
      const body = init?.body
      if (headers !== undefined && (body === undefined || body === null || typeof body === 'string')) {
        const url = new URL(input, RELATIVE_BASE)
        const method = (init?.method ?? 'GET').toUpperCase()
        if (typeof body === 'string' && headers['content-type'] === undefined) headers['content-type'] = 'text/plain;charset=UTF-8'
        const response = await handle({
          method,
          path: url.pathname,
          query: url.search.slice(1),
          headers,
          body: typeof body === 'string' && !NO_BODY.has(method) ? body : undefined,
        })
        return deliverFetch(response, init?.signal ?? undefined, networkError, onDelivered)
      }
    }
    const request =
      typeof input === 'string' || input instanceof URL ? new Request(new URL(input, RELATIVE_BASE), init) : new Request(input, init)
    return deliverFetch(await handle(await fromRequest(request)), request.signal, networkError, onDelivered)
  }
}
