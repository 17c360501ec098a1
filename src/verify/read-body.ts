/**
 * A target's answer read with a size cap, for `verify` and `snapshot`: the body is streamed and the reading stops
 * (the connection is closed) as soon as it passes the cap, so a target sending an endless body costs at most the
 * cap in memory. The time limit is the request's `AbortSignal`, which also ends a body that stalls.
 *
 * @see ../../../shared/STYLE.md "Bounded by construction"
 */
import { PetStoreMockError } from '../core/errors.js'

/** The default cap: far above any honest answer of the API (a page of 100 pets with 1,000-character names is under 1 MiB). */
export const DEFAULT_TARGET_BODY_BYTES = 16 * 1024 * 1024

const KIB = 1024
const MIB = 1024 * KIB

/** A size as people read it: `16 MiB`, `64 KiB`, `1000 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`
  if (bytes >= KIB && bytes % KIB === 0) return `${bytes / KIB} KiB`
  return `${bytes} bytes`
}

/** The answer was larger than the cap; the message names the request, the cap and the option that sets it. */
export class BodyTooLargeError extends PetStoreMockError {
  override readonly name = 'BodyTooLargeError'
  readonly code = 'body_too_large'
}

export interface BodyLimit {
  /** Bytes the body may hold at most. */
  readonly maxBytes: number
  /** The request, as the message names it: `GET /v1/pets?limit=100`. */
  readonly request: string
  /** The option that sets the cap, as the message names it: `--max-body-bytes`. */
  readonly option: string
}

function tooLarge(limit: BodyLimit): BodyTooLargeError {
  return new BodyTooLargeError(`the target's answer to ${limit.request} is larger than ${sizeText(limit.maxBytes)} (${limit.option})`)
}

/**
 * The body of `response` as UTF-8 text, read chunk by chunk; throws `BodyTooLargeError` once it passes
 * `limit.maxBytes` (at once when `Content-Length` says so), after cancelling the rest. Other failures (a reset, the
 * request's signal) are thrown as the stream throws them.
 *
 * @example
 * const text = await readBody(response, { maxBytes: 16 * 1024 * 1024, request: 'GET /v1/pets', option: '--max-body-bytes' })
 */
export async function readBody(response: Response, limit: BodyLimit): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (declared > limit.maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw tooLarge(limit)
  }
  if (response.body === null) return ''
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  const parts: string[] = []
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (bytes > limit.maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw tooLarge(limit)
    }
    parts.push(decoder.decode(value, { stream: true }))
  }
  parts.push(decoder.decode())
  return parts.join('')
}
