/**
 * What a world tells its listeners of each request it answered, once, from the outside of its pipeline: the request,
 * the answer (or the error no step answered) and when both happened. Traces listen here (src/world/tracing.ts); a world
 * with no listener has no such step at all, so a request pays nothing for it.
 */
import type { Api } from '../core/api.js'
import type { ApiRequest, ApiResponse, ApiResult } from '../core/types.js'

export interface Answered {
  readonly request: ApiRequest
  /** The answer the world decided; `undefined` when the pipeline failed (`error`). */
  readonly response: ApiResponse | undefined
  readonly error?: unknown
  /** When the request reached the world and when its answer was decided, in ms since the epoch (sub-ms precision). */
  readonly startedAt: number
  readonly endedAt: number
}

export type AnswerListener = (answered: Answered) => void

/** Now in ms since the epoch, with `performance.now()`'s precision (the span of a sub-ms answer is not 0 long). */
const epochNow = (): number => performance.timeOrigin + performance.now()

/**
 * `next`, telling `listeners` of each answer once it is decided. A listener cannot change an answer: one that throws is
 * skipped (the answer goes out as decided).
 *
 * @example
 * const handle = announcing(pipeline, [traceAnswers(world)]).handle
 */
export function announcing(next: Api, listeners: readonly AnswerListener[]): Api {
  if (listeners.length === 0) return next
  const tell = (answered: Answered): void => {
    for (const listener of listeners) {
      try {
        listener(answered)
      } catch {
        // A listener's failure is its own (OpenTelemetry's API itself never throws): the client still gets its answer.
      }
    }
  }
  return {
    handle(request): ApiResult {
      const startedAt = epochNow()
      const answered = (response: ApiResponse): ApiResponse => {
        tell({ request, response, startedAt, endedAt: epochNow() })
        return response
      }
      const failed = (error: unknown): never => {
        tell({ request, response: undefined, error, startedAt, endedAt: epochNow() })
        throw error
      }
      let result: ApiResult
      try {
        result = next.handle(request)
      } catch (error) {
        return failed(error)
      }
      return result instanceof Promise ? result.then(answered, failed) : answered(result)
    },
  }
}
