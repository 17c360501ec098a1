/**
 * The standalone server's delivery step: its `--latency`, the answers of an event-loop turn held and written together
 * after the turn's state-file changes (decision 015), and a log line for each answer.
 */
import { problem } from '../core/errors.js'
import { between, createRandom } from '../core/random.js'
import { notKeptMessage } from '../core/refusals.js'
import type { ApiResponse } from '../core/types.js'
import { createNodeDelivery } from './node-host.js'
import type { RequestLog } from './request-log.js'
import type { ServerExchange } from './request-router.js'
import { NO_SAVER, type StateSaver } from './state/saver.js'

/** What the delivery reads of the server's options (`PetStoreServerOptions`). */
export interface ServerDeliveryOptions {
  /** Extra latency per API response, in ms: a fixed number or `{ min, max }` (drawn from a generator seeded by `seed`). */
  readonly latency?: number | { min: number; max: number } | undefined
  readonly seed?: number | undefined
}

/** The server's `--latency`, drawn from a generator seeded by the world's seed. */
function latencyOf(options: ServerDeliveryOptions): (() => number) | undefined {
  const { latency } = options
  if (latency === undefined) return undefined
  if (typeof latency === 'number') return () => latency
  const random = createRandom((options.seed ?? 1) ^ 0x5eed)
  return () => between(random, latency.min, latency.max)
}

/** Whether an error only says the client hung up: logged as `aborted`, without a stack (docs/spec-decisions.md row 47). */
export function isHangUp(error: unknown): boolean {
  const { code, message } = error as NodeJS.ErrnoException
  // HPE_INVALID_EOF_STATE: the connection ended in the middle of a request.
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'HPE_INVALID_EOF_STATE' || message === 'aborted'
}

/**
 * A create the state file could not write (row 65 of docs/spec-decisions.md): 503 instead of its 201, so no answer says
 * a change was kept that a restart would lose. Other answers of the turn acknowledge no change and go out as they are.
 */
function notKept(response: ApiResponse): ApiResponse {
  if (response.status !== 201) return response
  const refused = problem('state_file_unavailable', notKeptMessage('create'))
  return { ...refused, meta: { ...response.meta, rule: 'state.unavailable' } }
}

/** What hears of each API answer the delivery hands over: the request log, the metrics (src/server/http-server.ts). */
export type DeliveredListener = (exchange: ServerExchange, status: number, response: ApiResponse) => void

/**
 * The server's delivery: answers of a turn held and written together, after the turn's state-file changes (decision
 * 015), each then told to `listeners` once. Without a state file nothing of the saver runs on the way of a request.
 */
export function serverDelivery(
  options: ServerDeliveryOptions,
  saver: StateSaver,
  log: RequestLog,
  listeners: readonly DeliveredListener[],
) {
  const saving = saver !== NO_SAVER
  const told: DeliveredListener[] = saving ? [() => saver.changed(), ...listeners] : [...listeners]
  return createNodeDelivery<ServerExchange>({
    latency: latencyOf(options),
    batch: true,
    beforeAnswers: saving ? saver.flush : undefined,
    notKept: saving ? notKept : undefined,
    onAnswered:
      told.length === 0
        ? undefined
        : (exchange, status, response) => {
            for (const listener of told) listener(exchange, status, response)
          },
    onFailed(exchange, error) {
      if (isHangUp(error)) return log.line(exchange, 0, undefined, 'aborted')
      console.error('[petstore-mock] Request failed:', error)
      log.line(exchange, 500, undefined, 'error')
    },
  })
}
