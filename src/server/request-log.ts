/**
 * The standalone server's request log: one line per request, `pretty` for people or `json` for tools and agents
 * (docs/mcp.md, "Logs"): session, operation, key hint, plan, scenario and stage, fault, the latency a scenario added,
 * duration, and the rule that decided the answer (docs/explain.md). Never the API key (the journal's plan and key hint only).
 */
import type { IncomingMessage } from 'node:http'
import type { ResponseMeta } from '../core/types.js'

export type LogFormat = 'pretty' | 'json' | 'silent'

export interface LoggedRequest {
  readonly req: IncomingMessage
  /** `performance.now()` when the request arrived (0 when not logging). */
  readonly started: number
}

export interface RequestLog {
  /** The moment to pass back as `started`: `performance.now` itself. */
  start(): number
  /** Nothing is logged: a host need not call `answered`. */
  readonly silent: boolean
  /** Logs one request: its status (0 when a fault dropped it), the key's plan and a note; `meta`, what the API noted on it. */
  line(request: LoggedRequest, status: number, plan?: string, note?: string, answer?: LoggedAnswer): void
  /** Logs an answer the delivery wrote (or dropped: status 0), with what the core and the scenario noted on it. */
  answered(request: LoggedRequest, status: number, response: LoggedAnswer): void
}

/** What an API answer tells the log about itself. */
export interface LoggedAnswer {
  readonly meta?: ResponseMeta | undefined
  /** The latency a scenario added, in ms. */
  readonly delayMs?: number | undefined
}

/** A pretty line names the rule of an answer that is not `ok` (docs/explain.md): ` rate.minute-window`. */
const rule = (answer: LoggedAnswer | undefined): string => {
  const named = answer?.meta?.rule
  return named === undefined || named === 'ok' ? '' : ` ${named}`
}

/** Query parameters whose values a log must not show: a secret sent in a URL by mistake (`?token=`, `?api_key=`). */
const SECRET_PARAM = /([?&][^=&]*(?:token|key|secret|password|auth)[^=&]*=)[^&]*/gi

/** The request's target as logged: a secret-looking query value replaced by `…` (the path and other values as sent). */
const loggedUrl = (url: string | undefined): string => (url?.includes('?') ? url.replace(SECRET_PARAM, '$1…') : (url ?? ''))

/**
 * @example
 * const log = createRequestLog('pretty', (line) => process.stdout.write(`${line}\n`))
 * log.line({ req, started: log.start() }, 200, 'pro')
 */
export function createRequestLog(format: LogFormat, write: (line: string) => void): RequestLog {
  // Bound, so a request's start runs no function of this file.
  const start = performance.now.bind(performance)
  if (format === 'silent') return { silent: true, start, line: () => {}, answered: () => {} }
  const log: RequestLog = {
    silent: false,
    start,
    answered: (request, status, answer) => log.line(request, status, answer.meta?.plan, answer.meta?.fault, answer),
    line({ req, started }, status, plan, note, answer) {
      const ms = Math.round((performance.now() - started) * 10) / 10
      const session = req.headers['x-mock-session']
      if (format === 'json') {
        const time = new Date().toISOString()
        write(
          JSON.stringify({
            time,
            method: req.method,
            path: loggedUrl(req.url),
            status,
            plan: plan ?? null,
            ms,
            session: session ?? null,
            note: note ?? null,
            operation: answer?.meta?.operation ?? null,
            key: answer?.meta?.keyHint ?? null,
            scenario: answer?.meta?.scenario ?? null,
            stage: answer?.meta?.stage ?? null,
            fault: answer?.meta?.fault ?? null,
            delayMs: answer?.delayMs ?? 0,
            rule: answer?.meta?.rule ?? null,
          }),
        )
      } else {
        write(
          `${req.method} ${loggedUrl(req.url)} ${status} ${plan ?? '-'} ${ms}ms${session ? ` [${String(session)}]` : ''}${note ? ` (${note})` : ''}${rule(answer)}`,
        )
      }
    },
  }
  return log
}
