/**
 * The Fetch adapter: Fetch `Request` -> plain `ApiRequest`, plain `ApiResponse` -> `Response`, and
 * the delivery step of Fetch hosts (a scenario's latency and dropped answers). Used by the msw
 * handlers and by `petStore.fetch`; imports no msw, so a world's `fetch` needs none.
 */

import { problem } from '../core/errors.js'
import { TIMEOUT_FAULT_MAX_MS } from '../core/faults.js'
import type { ApiRequest, ApiResponse, ApiResult } from '../core/types.js'
import { apiRequestOf, ignoresBody } from '../core/validate.js'

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
/** Base for relative URLs handed to `petStore.fetch('/v1/pets')`. */
const RELATIVE_BASE = 'http://petstore.mock'

/** Reads a Fetch `Request` into the core's plain request. */
export async function fromRequest(request: Request): Promise<ApiRequest> {
  const url = new URL(request.url)
  // Keyed by what the client sent: no prototype, so a header named `__proto__` is kept like any other.
  const headers: Record<string, string> = Object.create(null)
  request.headers.forEach((value, name) => {
    headers[name] = value
  })
  const { method } = request
  const path = url.pathname
  const query = url.search.slice(1)
  if (request.body === null || ignoresBody(method)) return apiRequestOf(method, path, query, headers, undefined)
  const bytes = await request.arrayBuffer()
  let text: string
  try {
    text = UTF8.decode(bytes)
  } catch {
    // Not UTF-8: nothing of it is stored; the core answers 400 invalid_body.
    return apiRequestOf(method, path, query, headers, { text: undefined, notUtf8: true })
  }
  return apiRequestOf(method, path, query, headers, { text })
}

/**
 * What `handle` answered, or, when it failed (a bug of the mock), a 500 `internal_error` Error body and the error on
 * the console: never msw's page with a stack trace, never a rejected `fetch`.
 */
export async function answerOf(handle: (request: ApiRequest) => ApiResult, request: ApiRequest): Promise<ApiResponse> {
  try {
    return await handle(request)
  } catch (error) {
    console.error('[petstore-mock] Request failed:', error)
    return problem('internal_error', 'The mock failed to answer this request; the console has the details.')
  }
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
export interface FetchDelivery {
  /** The request's signal: a timeout fault waits until it aborts. */
  readonly signal: AbortSignal | undefined
  /** What a dropped connection becomes: a rejected `fetch`, or msw's `Response.error()`. */
  readonly onDrop: () => Response | never
  /** Tells the world the answer went out. */
  readonly onDelivered: (response: ApiResponse) => void
  /** The request was a HEAD: the response has no body. */
  readonly head: boolean
}

export function deliverFetch(response: ApiResponse, delivery: FetchDelivery): Response | Promise<Response> {
  if (response.delayMs === undefined && response.drop === undefined) {
    delivery.onDelivered(response)
    return toResponse(response, delivery.head)
  }
  return deliverLater(response, delivery)
}

async function deliverLater(response: ApiResponse, { signal, onDrop, onDelivered, head }: FetchDelivery): Promise<Response> {
  try {
    if (response.delayMs) await wait(response.delayMs, signal)
    if (response.drop === 'timeout') await wait(TIMEOUT_FAULT_MAX_MS, signal)
  } finally {
    onDelivered(response)
  }
  return response.drop === undefined ? toResponse(response, head) : onDrop()
}

const networkError = (): never => {
  throw new TypeError('fetch failed', { cause: new Error('[petstore-mock] Connection reset by a scenario fault (network-error)') })
}

/** Writes the core's plain response as a Fetch `Response`. */
function toResponse(response: ApiResponse, head: boolean): Response {
  return new Response(head || response.status === 204 || response.status === 304 ? null : response.body, {
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
        const text = typeof body === 'string' ? { text: body } : undefined
        const response = await answerOf(handle, apiRequestOf(method, url.pathname, url.search.slice(1), headers, text))
        return deliverFetch(response, { signal: init?.signal ?? undefined, onDrop: networkError, onDelivered, head: method === 'HEAD' })
      }
    }
    const request =
      typeof input === 'string' || input instanceof URL ? new Request(new URL(input, RELATIVE_BASE), init) : new Request(input, init)
    const delivery = { signal: request.signal, onDrop: networkError, onDelivered, head: request.method === 'HEAD' }
    return deliverFetch(await answerOf(handle, await fromRequest(request)), delivery)
  }
}
