/**
 * The user's own msw handlers in the standalone server (`--handlers FILE`), through msw's public
 * `getResponse` (decisions/007-user-handlers-over-getresponse.md). Only used when handlers are loaded.
 */
import type { IncomingMessage } from 'node:http'
import type { RequestHandler } from 'msw'

/** The Fetch `Request` user handlers see, from a `node:http` request and its body. */
export function toFetchRequest(req: IncomingMessage, base: string, body: string | undefined): Request {
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

export type UserHandlerResult = { kind: 'none' } | { kind: 'response'; response: Response } | { kind: 'network-error' }

/**
 * Runs the user's handlers on a request. `Response.error()` becomes a network error; a thrown error
 * propagates to the caller, which answers a JSON 500.
 */
export async function runUserHandlers(handlers: readonly RequestHandler[], request: Request): Promise<UserHandlerResult> {
  // msw is loaded only when user handlers are: a server without them starts faster.
  const { getResponse } = await import('msw')
  const response = await getResponse([...handlers], request)
  if (response === undefined) return { kind: 'none' }
  if (response.type === 'error') return { kind: 'network-error' }
  return { kind: 'response', response }
}

/** Loads a module exporting msw handlers: a default export (array or handler) and/or named handler exports. */
export async function loadUserHandlers(file: string, importer: (specifier: string) => Promise<unknown>): Promise<RequestHandler[]> {
  let module: Record<string, unknown>
  try {
    module = (await importer(file)) as Record<string, unknown>
  } catch (error) {
    throw new Error(`[petstore-mock] Could not load --handlers ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
  const handlers: RequestHandler[] = []
  const add = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(add)
    else if (value !== null && typeof value === 'object' && typeof (value as { run?: unknown }).run === 'function')
      handlers.push(value as RequestHandler)
  }
  add(module.default)
  for (const [name, value] of Object.entries(module)) if (name !== 'default') add(value)
  if (handlers.length === 0) {
    throw new Error(
      `[petstore-mock] --handlers ${file} exports no msw handlers. Export them, e.g. \`export default [http.get('*/v1/store/orders', () => HttpResponse.json([]))]\`.`,
    )
  }
  return handlers
}
