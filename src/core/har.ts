/**
 * The journal as a HAR 1.2 log (`GET /__mock/requests.har`, the panel's "Export HAR"), which browsers'
 * devtools, Charles, Fiddler, Insomnia and k6's converter open. Host-free: the in-page panel builds it too.
 *
 * @see http://www.softwareishard.com/blog/har-12-spec/
 */
import type { JournalEntry } from './journal-entry.js'
import { utf8Length } from './json.js'

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

const pairs = (headers: Readonly<Record<string, string>>): NameValue[] => Object.entries(headers).map(([name, value]) => ({ name, value }))

function queryString(query: string): NameValue[] {
  if (query === '') return []
  return [...new URLSearchParams(query)].map(([name, value]) => ({ name, value }))
}

function harEntry(entry: JournalEntry, origin: string): Record<string, unknown> {
  const url = `${origin}${entry.path}${entry.query === '' ? '' : `?${entry.query}`}`
  const text = entry.bodyText
  const mimeType = entry.responseHeaders['content-type'] ?? 'application/json'
  const comment = [
    entry.bodyTruncated ? `request body truncated to its first 16 KiB of ${entry.bodySize} bytes` : '',
    entry.responseBodyTruncated ? 'response body truncated to its first 16 KiB' : '',
    entry.fault ? `fault injected: ${entry.fault}` : '',
    entry.scenario ? `scenario: ${entry.scenario}` : '',
  ].filter((part) => part !== '')
  return {
    startedDateTime: entry.time,
    time: entry.durationMs,
    request: {
      method: entry.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(entry.requestHeaders),
      queryString: queryString(entry.query),
      ...(text === undefined
        ? {}
        : { postData: { mimeType: entry.requestHeaders['content-type'] ?? 'application/json', params: [], text } }),
      headersSize: -1,
      bodySize: entry.bodySize,
    },
    response: {
      status: entry.status,
      statusText: REASONS[entry.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(entry.responseHeaders),
      content: { size: utf8Length(entry.responseBody), mimeType, text: entry.responseBody },
      redirectURL: '',
      headersSize: -1,
      bodySize: utf8Length(entry.responseBody),
    },
    cache: {},
    timings: { send: 0, wait: entry.durationMs, receive: 0 },
    ...(comment.length > 0 ? { comment: comment.join('; ') } : {}),
  }
}

/**
 * @param origin the scheme and authority the requests went to, e.g. `http://127.0.0.1:4010`.
 * @example
 * const har = toHar(world.journal.all(), { origin: 'http://127.0.0.1:4010', version: '0.1.0' })
 */
export function toHar(entries: readonly JournalEntry[], { origin, version }: { origin: string; version: string }) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'petstore-mock', version },
      pages: [],
      entries: entries.map((entry) => harEntry(entry, origin)),
    },
  }
}
