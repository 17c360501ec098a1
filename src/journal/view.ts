/**
 * A journal entry as the admin API writes it (`GET /__mock/requests`, one entry, the HAR export), with its bodies
 * shown at a bounded cost. JSON escapes a control character as six bytes (`\u0000`), so a kept 16 KiB prefix of NUL
 * bytes would be written as 96 KiB, twice (test/http/journal-read-ceiling.test.ts). A body holding a control character
 * other than tab, line feed and carriage return is therefore written as the base64 of its UTF-8 bytes (4 bytes for 3),
 * marked `bodyEncoding: "base64"` (`responseBodyEncoding` for the response's), and its parsed `body` is left out.
 * Host-free: the in-page panel's HAR export uses it too.
 *
 * @see docs/spec-decisions.md, row 61
 */
import { stringifyJson } from '../core/json.js'
import type { JournalEntry } from './entry.js'

/**
 * Whether JSON would blow the text up: it holds a control character (U+0000 to U+001F) other than tab, line feed and
 * carriage return, which JSON writes as six bytes (`\u0000`; two for `\b` and `\f`).
 */
export function isBinaryText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return true
  }
  return false
}

const encoder = new TextEncoder()
/** Bytes per `String.fromCharCode` call: well under every engine's limit on arguments. */
const SLICE = 0x8000
const NON_ASCII = /[\u0080-\uffff]/

/** The base64 of the text's UTF-8 bytes (what the client sent, since a kept body was valid UTF-8). */
export function base64Utf8(text: string): string {
  // ASCII text is its own UTF-8, and `btoa` reads each character as one byte.
  if (!NON_ASCII.test(text)) return btoa(text)
  const bytes = encoder.encode(text)
  let binary = ''
  for (let at = 0; at < bytes.length; at += SLICE)
    binary += String.fromCharCode.apply(null, bytes.subarray(at, at + SLICE) as unknown as number[])
  return btoa(binary)
}

/** A body as shown: as it is, or as base64 when it is not text. */
export function shownBody(text: string): { text: string; base64: boolean } {
  return isBinaryText(text) ? { text: base64Utf8(text), base64: true } : { text, base64: false }
}

/** What the admin API writes of an entry: the entry, with a body that is not text as base64. */
export type JournalEntryView = Omit<JournalEntry, 'body' | 'bodyText' | 'responseBody'> & {
  readonly body?: unknown
  readonly bodyText: string | undefined
  /** `"base64"` when `bodyText` is the base64 of the body (it holds control characters); then `body` is left out. */
  readonly bodyEncoding?: 'base64'
  readonly responseBody: string
  /** `"base64"` when `responseBody` is the base64 of the body. */
  readonly responseBodyEncoding?: 'base64'
}

/**
 * @example
 * res.send(stringifyJson(entryView(world.journal.get(42))))
 */
export function entryView(entry: JournalEntry): JournalEntryView {
  const request = entry.bodyText === undefined ? undefined : shownBody(entry.bodyText)
  const response = shownBody(entry.responseBody)
  if (!request?.base64 && !response.base64) return entry
  const { body, bodyText: _text, responseBody: _response, ...rest } = entry
  return {
    ...rest,
    ...(request?.base64 ? { bodyText: request.text, bodyEncoding: 'base64' as const } : { body, bodyText: entry.bodyText }),
    responseBody: response.text,
    ...(response.base64 ? { responseBodyEncoding: 'base64' as const } : {}),
  }
}

/**
 * The JSON of a view: only a parsed body can hold a `bigint`, so only a view with one pays for the exact serialiser
 * (a replacer called for every value).
 *
 * @example
 * res.send(viewJson(entryView(entry)))
 */
export function viewJson(view: JournalEntryView): string {
  const kind = typeof view.body
  return kind === 'object' || kind === 'bigint' ? stringifyJson(view) : JSON.stringify(view)
}
