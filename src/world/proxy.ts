/**
 * `--proxy URL` (issue #15): requests under the base path that the mock does not define (the store group, other
 * paths and methods the spec leaves out) go to a real deployment, with their method, headers (Authorization
 * included) and body; its answer is relayed as it is, and journaled. Everything the mock defines stays mocked.
 * An upstream that is down answers 502, one too slow 504, each with an Error body.
 */
import type { Api } from '../core/api.js'
import { problem } from '../core/errors.js'
import { matchRoute } from '../core/routes.js'
import type { ApiRequest, ApiResponse } from '../core/types.js'
import { OPERATIONS } from '../spec.js'

export interface ProxyOptions {
  /** The upstream's base address, e.g. `https://staging.example/v1`: the path after the mock's base path is appended. */
  readonly target: string
  /** The mock's base path, e.g. `/v1`. */
  readonly basePath: string
  /** How long to wait for the upstream's answer. */
  readonly timeoutMs: number
  /** The fetch that reaches the upstream (in-process: one msw does not intercept). */
  readonly fetch: typeof fetch
}

const DEFINED = new Set(OPERATIONS.filter((operation) => operation.defined).map((operation) => operation.id))
/** Headers that belong to one connection, or that the relay changes (the body is relayed decoded). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'host', 'upgrade'])

/** Whether the mock answers this request itself: a defined operation, or a path outside the base. */
function isMocked(request: ApiRequest, basePath: string): boolean {
  if (request.path !== basePath && !request.path.startsWith(`${basePath}/`)) return true
  const route = matchRoute(request.method, request.path.slice(basePath.length))
  return route.ok && DEFINED.has(route.operation)
}

function outgoingHeaders(request: ApiRequest): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-mock-')) continue
    for (const item of typeof value === 'string' ? [value] : value) headers.append(name, item)
  }
  return headers
}

async function forward(request: ApiRequest, options: ProxyOptions): Promise<ApiResponse> {
  const url = `${options.target.replace(/\/+$/, '')}${request.path.slice(options.basePath.length)}${request.query ? `?${request.query}` : ''}`
  const meta = { upstream: options.target }
  let response: Response
  try {
    response = await options.fetch(url, {
      method: request.method,
      headers: outgoingHeaders(request),
      ...(request.body === undefined || request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    })
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError'
    const answer = timedOut
      ? problem('gateway_timeout', `The --proxy upstream ${options.target} did not answer within ${options.timeoutMs} ms.`)
      : problem('bad_gateway', `The --proxy upstream ${options.target} could not be reached: ${(error as Error).message}.`)
    return { ...answer, meta }
  }
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) headers[name] = value
  })
  return { status: response.status, headers, body: await response.text(), meta }
}

/**
 * @example
 * const api = withProxy(next, { target: 'https://staging.example/v1', basePath: '/v1', timeoutMs: 10_000, fetch })
 */
export function withProxy(next: Api, options: ProxyOptions): Api {
  return {
    handle: (request) => (isMocked(request, options.basePath) ? next.handle(request) : forward(request, options)),
  }
}
