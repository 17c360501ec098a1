/**
 * The journal as a HAR 1.2 log (`GET /__mock/requests.har`, the panel's "Export HAR"), which browsers'
 * devtools, Charles, Fiddler, Insomnia and k6's converter open. Host-free: the in-page panel builds it too.
 *
 * @see http://www.softwareishard.com/blog/har-12-spec/
 */
import { utf8Length } from '../core/json.js'
import type { JournalEntry } from './entry.js'
import { shownBody } from './view.js'

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
}

type NameValue = { name: string; value: string }

const pairs = (list: Iterable<[string, string]>): NameValue[] => Array.from(list, ([name, value]) => ({ name, value }))

/**
 * One entry of the log. A body that is not text (it holds control characters) is written as base64, as the admin API
 * writes it: the response's with HAR's own `encoding: "base64"`, the request's (HAR 1.2 has no encoding for
 * `postData`) with `_encoding: "base64"` and a comment.
 *
 * @example
 * stringifyJson(harEntry(world.journal.get(42), 'http://127.0.0.1:4010'))
 */
export function harEntry(entry: JournalEntry, origin: string): Record<string, unknown> {
  const url = `${origin}${entry.path}${entry.query === '' ? '' : `?${entry.query}`}`
  const sent = entry.bodyText === undefined ? undefined : shownBody(entry.bodyText)
  const answer = shownBody(entry.responseBody)
  const mimeType = entry.responseHeaders['content-type'] ?? 'application/json'
  const comment = [
    // Why the answer is what it is (docs/explain.md): the first thing a reader of a failed run wants.
    `reason: ${entry.reason.text}`,
    entry.bodyTruncated ? `request body truncated to its first 16 KiB of ${entry.bodySize} bytes` : '',
    entry.responseBodyTruncated ? 'response body truncated to its first 16 KiB' : '',
    sent?.base64 ? 'request body as base64: it holds control characters' : '',
    entry.fault ? `fault injected: ${entry.fault}` : '',
    entry.scenario ? `scenario: ${entry.scenario}` : '',
  ].filter((part) => part !== '')
  const size = utf8Length(entry.responseBody)
  return {
    startedDateTime: entry.time,
    time: entry.durationMs,
    request: {
      method: entry.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(Object.entries(entry.requestHeaders)),
      queryString: pairs(new URLSearchParams(entry.query)),
      ...(sent === undefined ? {} : { postData: postData(sent, entry.requestHeaders['content-type']) }),
      headersSize: -1,
      bodySize: entry.bodySize,
    },
    response: {
      status: entry.status,
      statusText: REASONS[entry.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(Object.entries(entry.responseHeaders)),
      content: { size, mimeType, text: answer.text, ...(answer.base64 ? { encoding: 'base64' } : {}) },
      redirectURL: '',
      headersSize: -1,
      bodySize: size,
    },
    cache: {},
    // `_delayMs`: the latency a scenario added, part of `wait` (HAR 1.2 custom fields start with an underscore).
    timings: { send: 0, wait: entry.durationMs, receive: 0, _delayMs: entry.delayMs },
    comment: comment.join('; '),
  }
}

function postData(sent: { text: string; base64: boolean }, type: string | undefined): Record<string, unknown> {
  return { mimeType: type ?? 'application/json', params: [], text: sent.text, ...(sent.base64 ? { _encoding: 'base64' } : {}) }
}

/** A HAR 1.2 log of `entries`, written by petstore-mock `version`. */
const harLog = <T>(version: string, entries: T[]) => ({
  log: { version: '1.2', creator: { name: 'petstore-mock', version }, pages: [], entries },
})

/** What comes before the entries of a log written entry by entry (`{"log":{…,"entries":[`), and after them. */
export function harFrame(version: string): { head: string; tail: string } {
  return { head: JSON.stringify(harLog(version, [])).slice(0, -3), tail: ']}}' }
}

/**
 * @param origin the scheme and authority the requests went to, e.g. `http://127.0.0.1:4010`.
 * @example
 * const har = toHar(world.journal.all(), { origin: 'http://127.0.0.1:4010', version: '0.1.0' })
 */
export function toHar(entries: readonly JournalEntry[], { origin, version }: { origin: string; version: string }) {
  return harLog(
    version,
    entries.map((entry) => harEntry(entry, origin)),
  )
}
