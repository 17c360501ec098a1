/**
 * Reading a deployment's pets for `petstore-mock snapshot` (docs/snapshot.md): `GET /pets?limit=100` once per status
 * and once without one, merged by id, ids exact (lossless JSON). The spec shows no paging beyond `limit`
 * (docs/spec-decisions.md row 6), so that is all a client can reach: at most ~400 distinct pets.
 *
 * It keeps to the target's rate limit: when a response says no request is left (`X-RateLimit-Remaining: 0`)
 * it waits until `X-RateLimit-Reset`, and after a 429 it waits at least `Retry-After` (and longer for each
 * further 429 in a row: the spec's exponential backoff), so it never sends early and never earns the temporary ban.
 *
 * @see ../../../shared/spec/pet-store-service.md "Limits"
 */

import { PetStoreMockError } from '../../core/errors.js'
import { issueText } from '../../core/issues.js'
import { parseJson } from '../../core/json.js'
import { type PetRecord, PetRecordSchema } from '../../schemas.js'
import { PAGE_SIZE, PET_STATUSES } from '../../spec.js'
import { retryAfterMs } from '../../verify/describe.js'
import { BodyTooLargeError, readBody } from '../../verify/read-body.js'

export interface ReadOptions {
  /** The base address, ending with `/v1`, without a trailing slash. */
  readonly target: string
  readonly key: string
  /** The longest wait the target may ask for; a longer one stops the reading (exit 1). */
  readonly maxWaitMs: number
  /** Bytes one answer may hold; a larger one stops the reading (exit 1). */
  readonly maxBodyBytes: number
  /** One line of progress (stderr). */
  readonly report: (line: string) => void
}

/** Why reading stopped: the target answered an error (exit 1) or could not be reached (exit 2). */
export class ReadError extends PetStoreMockError {
  override readonly name = 'ReadError'
  readonly code = 'snapshot_read_failed'
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message)
  }
}

export interface ReadResult {
  /** Every pet read, by id; a pet read twice keeps its latest body. */
  readonly pets: ReadonlyMap<bigint, PetRecord>
  /** The listings (`status=sold`) that came back with `limit` pets: the target may hold more that no request can reach. */
  readonly full: readonly string[]
}

/** No answer within this time: the target counts as unreachable. */
const REQUEST_TIMEOUT_MS = 30_000
/** 429s in a row for one listing before giving up. */
const MAX_RATE_LIMITED = 6
/** Added to every wait, so the next request lands after the moment the target named, never on it. */
const MARGIN_MS = 100

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms))
const seconds = (ms: number): string => `${Math.ceil(ms / 1000)} s`

/**
 * Reads every pet the API lets a client reach.
 *
 * @example
 * const { pets } = await readPets({ target: 'https://staging.example.com/v1', key, maxWaitMs: 120_000, report: console.error })
 */
export async function readPets(options: ReadOptions): Promise<ReadResult> {
  const pets = new Map<bigint, PetRecord>()
  const full: string[] = []
  const pacer: Pacer = { waitMs: 0, why: '' }
  for (const status of [...PET_STATUSES, undefined]) {
    const label = status === undefined ? 'without status' : `status=${status}`
    const query = `limit=${PAGE_SIZE.max}${status === undefined ? '' : `&status=${status}`}`
    const page = await readListing(`${options.target}/pets?${query}`, options, pacer)
    const before = pets.size
    for (const pet of page) pets.set(pet.id, pet)
    const added = status === undefined ? ` (${pets.size - before} not listed by status)` : ''
    options.report(`  reading ${label}… ${page.length} pets${added}`)
    if (page.length >= PAGE_SIZE.max) full.push(label)
  }
  return { pets, full }
}

/** The wait the last answer asked for before the next request, and why (said when the wait begins). */
interface Pacer {
  waitMs: number
  why: string
}

/** One `GET /pets`, waiting first when the last answer asked for it, and after each 429 as long as it says. */
async function readListing(url: string, options: ReadOptions, pacer: Pacer): Promise<PetRecord[]> {
  for (let limited = 0; ; limited++) {
    if (pacer.waitMs > 0) {
      options.report(`  waiting ${seconds(pacer.waitMs)}: ${pacer.why}…`)
      await sleep(pacer.waitMs)
    }
    pacer.waitMs = 0
    const response = await send(url, options.key)
    const text = await readAnswer(url, response, options.maxBodyBytes)
    if (response.status !== 429) {
      if (response.status !== 200) throw new ReadError(describeError(url, response, text), 1)
      pacer.waitMs = windowWait(response, options.maxWaitMs)
      pacer.why = 'the target says no request is left until its rate-limit window resets (X-RateLimit-Reset)'
      return petsOf(url, text)
    }
    if (limited + 1 >= MAX_RATE_LIMITED)
      throw new ReadError(`the target answered 429 to GET ${url} ${MAX_RATE_LIMITED} times in a row; run again later.`, 1)
    // At least what Retry-After says, and 1, 2, 4, 8… s for the 1st, 2nd, 3rd… 429 in a row (the spec's exponential backoff).
    const told = retryAfterMs(response.headers.get('retry-after') ?? undefined, answeredAt(response))
    const wait = Math.max(told ?? 0, 1000 * 2 ** limited) + MARGIN_MS
    const code = errorCode(text)
    if (wait > options.maxWaitMs) {
      throw new ReadError(
        `the target answered 429${code ? ` (${code})` : ''} to GET ${url} and asks to wait ${seconds(wait)}, more than ` +
          `--max-wait ${options.maxWaitMs / 1000}: run again after that, or raise --max-wait.`,
        1,
      )
    }
    const why = told === undefined ? 'without Retry-After' : `with Retry-After: ${response.headers.get('retry-after')}`
    pacer.waitMs = wait
    pacer.why = `the target answered 429${code ? ` (${code})` : ''} ${why}`
  }
}

/** The request; no answer (refused, unknown host, timeout) is a ReadError with exit code 2 naming the URL. */
async function send(url: string, key: string): Promise<Response> {
  try {
    return await fetch(url, {
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      // A redirect is reported, not followed: the key goes only to the address the user named.
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    })
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` : failure(error)
    throw new ReadError(`cannot reach ${url} (${why}). Check --target and that the service is up.`, 2)
  }
}

/**
 * The answer's body, streamed under the size cap and the request's time limit. A body too large is the target's
 * error (exit 1), one that stalls or breaks off is as no answer (exit 2): neither is read as "not JSON".
 */
async function readAnswer(url: string, response: Response, maxBytes: number): Promise<string> {
  try {
    return await readBody(response, { maxBytes, request: `GET ${url}`, option: '--max-body-bytes' })
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new ReadError(`${error.message}: raise --max-body-bytes, or check --target.`, 1)
    if ((error as Error).name === 'TimeoutError')
      throw new ReadError(`the target's answer to GET ${url} did not end within ${REQUEST_TIMEOUT_MS / 1000} s. Try again later.`, 2)
    throw new ReadError(`the target's answer to GET ${url} broke off (${failure(error)}). Try again later.`, 2)
  }
}

/** Why a request or its body failed: the cause's code or message (fetch's own message says little), else the error's. */
function failure(error: unknown): string {
  const { message, cause } = error as Error & { cause?: { code?: string; message?: string } }
  return cause?.code ?? cause?.message ?? message
}

/** The target's clock when it answered: its `Date` header (whole seconds, so never later than the truth), else ours. */
function answeredAt(response: Response): number {
  const date = Date.parse(response.headers.get('date') ?? '')
  return Number.isNaN(date) ? Date.now() : date
}

/**
 * The wait before the next request when the target says none is left in its window, until `X-RateLimit-Reset`.
 * A reset further away than `--max-wait` (a used-up day, or a target whose clock is not ours) is not waited
 * for: the next request's 429 then says how long, as a delay that no clock skews.
 */
function windowWait(response: Response, maxWaitMs: number): number {
  if (response.headers.get('x-ratelimit-remaining')?.trim() !== '0') return 0
  const reset = Number(response.headers.get('x-ratelimit-reset'))
  if (!Number.isFinite(reset)) return 0
  const wait = reset * 1000 - answeredAt(response) + MARGIN_MS
  return wait <= 0 || wait > maxWaitMs ? 0 : wait
}

/** The answer's body as an Error body may be: its fields, when it is JSON. */
function errorBody(text: string): { code?: unknown; message?: unknown } | null {
  const parsed = parseJson(text)
  return parsed.ok ? (parsed.value as { code?: unknown; message?: unknown } | null) : null
}

/** The Error body's `code`, when the answer has one. */
function errorCode(text: string): string | undefined {
  const code = errorBody(text)?.code
  return typeof code === 'string' ? code : undefined
}

/** An answer other than 200 or 429, said with its status, the Error body's code and message, and the fix. */
function describeError(url: string, response: Response, text: string): string {
  const body = errorBody(text)
  const said = [body?.code, typeof body?.message === 'string' ? body.message.replace(/\.$/, '') : undefined].filter(
    (part): part is string => typeof part === 'string' && part !== '',
  )
  const { status } = response
  const hint =
    status === 401 || status === 403
      ? ' Check --key (or PETSTORE_SNAPSHOT_KEY).'
      : status >= 300 && status < 400
        ? ` It redirects to ${response.headers.get('location') ?? '(no Location)'}: use that address as --target.`
        : status === 404
          ? ' Is --target the base address ending with /v1?'
          : status >= 500
            ? ' The target failed: try again later.'
            : ''
  return `the target answered ${status}${said.length > 0 ? ` (${said.join(': ')})` : ''} to GET ${url}.${hint}`
}

/** The body of a 200 as pets, or a ReadError naming the first item that is not a Pet. */
function petsOf(url: string, text: string): PetRecord[] {
  const parsed = parseJson(text)
  if (!parsed.ok) throw new ReadError(`the target's answer to GET ${url} is not JSON: ${parsed.message}.`, 1)
  if (!Array.isArray(parsed.value)) throw new ReadError(`the target's answer to GET ${url} is not a JSON array of Pets.`, 1)
  return parsed.value.map((item: unknown, index) => {
    const pet = PetRecordSchema.safeParse(item)
    if (pet.success) return pet.data
    const [issue] = pet.error.issues
    const where = issue ? issueText(issue, '(item)') : 'not a Pet'
    throw new ReadError(`the target's answer to GET ${url} has an item ${index} that is not a Pet (${where}).`, 1)
  })
}
