/**
 * `GET /__mock/requests` (pages of the journal) and `GET /__mock/requests.har` (the journal as HAR): their query
 * (filters and one cursor), and their answers streamed entry by entry under a byte ceiling (admin-reads.ts).
 */
import type { Request, Response } from 'express'
import { harEntry, harFrame } from '../../journal/har.js'
import type { JournalFilter } from '../../journal/journal.js'
import { entryView, viewJson } from '../../journal/view.js'
import { type AdminReads, type JournalRead, type PageExtent, READ_MAX_BYTES, streamJournalRead } from './admin-reads.js'
import { refuse, worldOf } from './common.js'

function journalFilter(query: Request['query']): JournalFilter | string {
  const filter: JournalFilter = {}
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined)
  for (const name of ['method', 'path', 'plan', 'code', 'operation'] as const) {
    const value = text(name)
    if (value !== undefined) filter[name] = value as never
  }
  const status = text('status')
  if (status === undefined) return filter
  if (!/^\d{3}$/.test(status)) return `status must be a 3-digit HTTP status, got ${JSON.stringify(status)}.`
  filter.status = Number(status)
  return filter
}

/** The default and largest page of `GET /__mock/requests` (no read builds a giant string: decision 020). */
const PAGE = { default: 100, max: 1_000 }

type Paging = { limit: number; before?: number; after?: number }

/** `?limit=` (1..1000, else `fallback`), and one cursor: `?before=SEQ` (older entries) or `?after=SEQ` (newer ones). */
function pagingOf(query: Request['query'], fallback: number): Paging | string {
  const read = (name: string, min: number, max: number): number | string | undefined => {
    const text = query[name]
    if (text === undefined) return undefined
    if (typeof text !== 'string' || !/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
      return `${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}.`
    return Number(text)
  }
  const limit = read('limit', 1, PAGE.max)
  const before = read('before', 1, Number.MAX_SAFE_INTEGER)
  const after = read('after', 0, Number.MAX_SAFE_INTEGER)
  for (const value of [limit, before, after]) if (typeof value === 'string') return value
  if (before !== undefined && after !== undefined) return 'Send one cursor: before or after, not both.'
  const paging: Paging = { limit: (limit as number | undefined) ?? fallback }
  if (before !== undefined) paging.before = before as number
  if (after !== undefined) paging.after = after as number
  return paging
}

/**
 * The headers of a page: `Link: <…>; rel="next"` to the entries it left out (older ones, or with `after` newer ones),
 * and `X-Mock-Page-Stopped` when the byte ceiling (not the limit) stopped it, with the cursor that goes on.
 */
function pageHeaders(path: string, query: Request['query'], paging: Paging, page: PageExtent): Record<string, string> {
  if (!page.more) return {}
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query))
    if (typeof value === 'string' && name !== 'before' && name !== 'after') params.set(name, value)
  const cursor = paging.after !== undefined ? `after=${page.newest ?? paging.after}` : `before=${page.oldest ?? paging.before ?? 1}`
  params.set(...(cursor.split('=') as [string, string]))
  if (paging.limit <= PAGE.max) params.set('limit', String(paging.limit))
  return {
    link: `<${path}?${params}>; rel="next"`,
    ...(page.stopped ? { 'x-mock-page-stopped': `max-bytes=${READ_MAX_BYTES}; ${cursor}` } : {}),
  }
}

/** How a journal route writes its page: the text around the entries, each entry, and headers of its own. */
type PageFormat = Pick<JournalRead, 'head' | 'tail' | 'text'> & { readonly headers?: Record<string, string> }

/** A route answering a page of the journal at `path` in `format`: its query (filters, one cursor) checked, else a 400. */
function journalRoute(reads: AdminReads, path: string, fallback: number, format: (res: Response) => PageFormat) {
  return (req: Request, res: Response): void => {
    const filter = journalFilter(req.query)
    if (typeof filter === 'string') {
      refuse(res, 'invalid_admin_request', filter)
      return
    }
    const paging = pagingOf(req.query, fallback)
    if (typeof paging === 'string') {
      refuse(res, 'invalid_admin_request', paging)
      return
    }
    const { headers, ...shape } = format(res)
    streamJournalRead(res, reads, {
      journal: worldOf(res).journal,
      filter,
      ...paging,
      ...shape,
      headers: (page) => ({ ...headers, ...pageHeaders(path, req.query, paging, page) }),
    })
  }
}

/**
 * `GET /__mock/requests`: a page of entries as a JSON array, newest last.
 *
 * @example
 * app.get('/__mock/requests', journalPageRoute(reads))
 */
export function journalPageRoute(reads: AdminReads) {
  return journalRoute(reads, '/__mock/requests', PAGE.default, () => ({
    head: '[',
    tail: ']',
    text: (entry) => viewJson(entryView(entry)),
  }))
}

/**
 * `GET /__mock/requests.har`: the journal as a HAR 1.2 log, its newest entries (or those before or after a cursor,
 * and matching the same filters as the pages) up to the byte ceiling.
 *
 * @example
 * app.get('/__mock/requests.har', harRoute(reads, { origin: () => url, version: '1.0.0', session: () => 'default' }))
 */
export function harRoute(reads: AdminReads, parts: { origin: () => string; version: string; session: (res: Response) => string }) {
  return journalRoute(reads, '/__mock/requests.har', Number.MAX_SAFE_INTEGER, (res) => {
    const origin = parts.origin()
    return {
      ...harFrame(parts.version),
      // A HAR entry holds strings and numbers only: no bigint.
      text: (entry) => JSON.stringify(harEntry(entry, origin)),
      headers: { 'content-disposition': `attachment; filename="petstore-mock-${parts.session(res)}.har"` },
    }
  })
}
