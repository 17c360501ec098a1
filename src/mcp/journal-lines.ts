/**
 * A journal entry as the MCP tools show it: the fields a reader needs to see what a client did and what it was told,
 * no headers or bodies (`GET /__mock/requests` writes those).
 */
import type { JournalEntryView } from '../journal/view.js'

export interface JournalLine {
  readonly seq: number
  readonly time: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly operation?: string | undefined
  readonly key?: string | undefined
  readonly code?: string | undefined
  readonly fault?: string | undefined
  readonly retryAfter?: number | undefined
}

/** @example lineOf(entry) // { seq: 3, time: '…', method: 'GET', path: '/v1/pets', status: 429, retryAfter: 42, … } */
export const lineOf = (entry: JournalEntryView): JournalLine => ({
  seq: entry.seq,
  time: entry.time,
  method: entry.method,
  path: entry.path,
  status: entry.status,
  operation: entry.operation,
  key: entry.key,
  code: entry.code,
  fault: entry.fault,
  retryAfter: entry.rateLimit?.retryAfter,
})
