/**
 * The two sides a check runs on: the target over HTTP (within the request budget, waiting out `Retry-After`
 * itself) and an in-process mock answered by its `fetch` (what `petStore.fetch` is), whose waits move its frozen clock.
 */
import { parseJson } from '../core/json.js'
import { DEFAULT_KEYS, type KeyConfig } from '../keys.js'
import { createWorld } from '../world/create-world.js'
import type { PetStoreOptions } from '../world/options.js'
import { retryAfterMs } from './describe.js'
import { BodyTooLargeError, readBody } from './read-body.js'
import { type Auth, type Exchange, type Side, type SideRequest, Skip } from './types.js'

/** The key of the "wrong key" checks: no service should know it. */
const WRONG_KEY = 'petstore-mock-verify-not-a-key'

/** The in-process mock's Free-plan key when the run has none (`--free-key`). */
const MOCK_FREE_KEY = 'petstore-mock-verify-free'

/** What a `Retry-After` is taken to be when it is missing or unreadable: a whole window. */
const UNKNOWN_RETRY_MS = 60_000

interface SideParts {
  readonly name: 'target' | 'mock'
  readonly basePath: string
  /** Sends one request to a path under the base address. */
  readonly transport: (path: string, init: RequestInit) => Promise<Response>
  /** Reads an answer's body; throws an Error whose message says why it could not be read whole. */
  readonly read: (response: Response, request: SideRequest) => Promise<string>
  readonly keys: { readonly key: string; readonly free?: string | undefined }
  readonly budget: number
  readonly maxWaitMs: number
  readonly wait: (ms: number) => Promise<void>
  readonly now: () => number
}

/** An answer's `Retry-After` in ms from `now` (default when it came); a whole window when missing or unreadable. */
export const retryWaitMs = (exchange: Exchange, now = exchange.at): number =>
  retryAfterMs(exchange.headers['retry-after'], now) ?? UNKNOWN_RETRY_MS

const isTimeout = (error: unknown) => error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')

/** Why a request got no answer, in a few words (the cause's code when there is one). */
function describeFailure(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) return `no answer within ${timeoutMs} ms (--timeout)`
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined
  const message = error instanceof Error ? error.message : String(error)
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`
  return cause?.message ? `${message}: ${cause.message}` : message
}

function tokenOf(auth: Auth, keys: SideParts['keys']): string | undefined {
  if (auth === 'key') return keys.key
  if (auth === 'free') return keys.free
  return auth === 'wrong' ? WRONG_KEY : undefined
}

function exchangeOf(request: SideRequest, response: Response, text: string, at: number): Exchange {
  const parsed = text.trim() === '' ? undefined : parseJson(text)
  return {
    method: request.method ?? 'GET',
    path: request.path,
    auth: request.auth,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text,
    json: parsed?.ok ? parsed.value : undefined,
    at,
  }
}

/** A side over any transport: the budget, the `Retry-After` gate, the shared requests and the log. */
function createSide(parts: SideParts): Side {
  const log: Exchange[] = []
  const cache = new Map<string, Promise<unknown>>()
  // By key, not by role: the same key given as --key and --free-key is one quota.
  const retryAt = new Map<string, number>()
  const holder = (auth: Auth) => tokenOf(auth, parts.keys) ?? 'no key'
  let used = 0

  // Never send a key's request before its Retry-After has passed (that is how bans are earned): wait, or skip.
  const gate = async (request: SideRequest): Promise<void> => {
    const ms = (retryAt.get(holder(request.auth)) ?? 0) - parts.now()
    if (request.early || ms <= 0) return
    if (ms > parts.maxWaitMs) {
      throw new Skip(
        `the key is rate limited for ${Math.ceil(ms / 1000)} s more (Retry-After), over --max-wait ${Math.round(parts.maxWaitMs / 1000)}`,
      )
    }
    await parts.wait(ms)
  }

  // No answer, or one whose body could not be read whole (`incomplete`): status 0, and `error` says why.
  const answerOf = async (request: SideRequest, init: RequestInit): Promise<Exchange> => {
    let incomplete = false
    try {
      const response = await parts.transport(request.path, init)
      incomplete = true
      return exchangeOf(request, response, await parts.read(response, request), parts.now())
    } catch (error) {
      const failure = error instanceof Error ? error.message : String(error)
      const base = { method: init.method ?? 'GET', path: request.path, auth: request.auth, status: 0, headers: {} }
      return { ...base, text: '', json: undefined, error: failure, ...(incomplete ? { incomplete } : {}), at: parts.now() }
    }
  }

  const sendOnce = async (request: SideRequest): Promise<Exchange> => {
    if (used >= parts.budget) throw new Skip(`the request budget is used up (--max-requests ${parts.budget})`)
    await gate(request)
    used += 1
    const headers: Record<string, string> = {}
    const token = tokenOf(request.auth, parts.keys)
    if (token !== undefined) headers.authorization = `Bearer ${token}`
    if (request.contentType !== undefined) headers['content-type'] = request.contentType
    if (request.contentEncoding !== undefined) headers['content-encoding'] = request.contentEncoding
    const init: RequestInit = { method: request.method ?? 'GET', headers }
    if (request.body !== undefined) init.body = request.body as BodyInit
    const exchange = await answerOf(request, init)
    log.push(exchange)
    if (exchange.status === 429) retryAt.set(holder(request.auth), parts.now() + retryWaitMs(exchange, parts.now()))
    return exchange
  }

  return {
    name: parts.name,
    basePath: parts.basePath,
    async send(request) {
      const first = await sendOnce(request)
      return first.status !== 429 || request.raw ? first : sendOnce(request)
    },
    once<T>(key: string, make: () => Promise<T>): Promise<T> {
      if (!cache.has(key)) cache.set(key, make())
      return cache.get(key) as Promise<T>
    },
    wait: parts.wait,
    now: parts.now,
    log,
    left: () => parts.budget - used,
    used: () => used,
    retryAt: (auth) => retryAt.get(holder(auth)) ?? 0,
  }
}

interface TargetSideOptions {
  readonly target: URL
  readonly key: string
  readonly freeKey?: string | undefined
  readonly fetch: typeof fetch
  readonly budget: number
  readonly maxWaitMs: number
  readonly timeoutMs: number
  /** Bytes an answer's body may hold; a larger one is no answer (`--max-body-bytes`). */
  readonly maxBodyBytes: number
  readonly onWait?: ((ms: number) => void) | undefined
}

/** The body of a target's answer, within the cap and the request's time limit, or an Error saying which was hit. */
async function readTargetBody(response: Response, request: SideRequest, options: TargetSideOptions): Promise<string> {
  const named = `${request.method ?? 'GET'} ${options.target.pathname.replace(/\/+$/, '')}${request.path}`
  try {
    return await readBody(response, { maxBytes: options.maxBodyBytes, request: named, option: '--max-body-bytes' })
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw error
    if (isTimeout(error)) throw new Error(`the target's answer to ${named} did not end within ${options.timeoutMs} ms (--timeout)`)
    throw new Error(`the target's answer to ${named} broke off: ${describeFailure(error, options.timeoutMs)}`)
  }
}

/** The deployment being verified, over HTTP. */
export function createTargetSide(options: TargetSideOptions): Side {
  const base = options.target.href.replace(/\/+$/, '')
  return createSide({
    ...options,
    name: 'target',
    basePath: options.target.pathname.replace(/\/+$/, ''),
    transport: async (path, init) => {
      try {
        return await options.fetch(`${base}${path}`, { ...init, redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs) })
      } catch (error) {
        throw new Error(describeFailure(error, options.timeoutMs))
      }
    },
    read: (response, request) => readTargetBody(response, request, options),
    keys: { key: options.key, free: options.freeKey },
    wait: (ms) => {
      options.onWait?.(ms)
      // Half a second more: the target's clock may run a little ahead of this machine's (an HTTP-date Retry-After).
      return new Promise((done) => setTimeout(done, ms + 500))
    },
    now: Date.now,
  })
}

/**
 * An in-process mock with the options being verified. Its clock is frozen at the start (unless the options set
 * one), so a minute window cannot roll over mid-check, and waiting for `Retry-After` moves the clock.
 */
export function createMockSide(options: PetStoreOptions, keys: { key: string; free?: string | undefined }): Side {
  // The mock answers the run's own keys: the options' keys plus these, on the plans they stand for.
  // Without --free-key, the mock still shows what it does, with a Free-plan key of its own.
  const free = keys.free ?? MOCK_FREE_KEY
  const given = options.keys ?? DEFAULT_KEYS
  const extra: KeyConfig[] = []
  if (!given.some((k) => k.key === keys.key)) extra.push({ key: keys.key, plan: 'pro' })
  if (free !== keys.key && !given.some((k) => k.key === free)) extra.push({ key: free, plan: 'free' })
  // The mock side never sends requests out: a `proxy` in the options is left out.
  const { proxy: _proxy, proxyFetch: _proxyFetch, ...rest } = options
  // createPetStore's world without its msw handlers (petstore-mock/http loads no msw): `world.fetch` is `petStore.fetch`.
  const world = createWorld({
    ...rest,
    keys: [...given, ...extra],
    clock: options.clock ?? new Date(Math.floor(Date.now() / 1000) * 1000),
    journalLimit: 0,
  })
  return createSide({
    name: 'mock',
    basePath: world.basePath,
    transport: (path, init) => world.fetch(`${world.basePath}${path}`, init),
    // The mock's own answers, in this process: bounded by what the mock answers.
    read: (response) => response.text(),
    keys: { key: keys.key, free },
    budget: Number.POSITIVE_INFINITY,
    maxWaitMs: Number.POSITIVE_INFINITY,
    wait: async (ms) => world.clock.advance(ms),
    now: () => world.clock.now(),
  })
}
