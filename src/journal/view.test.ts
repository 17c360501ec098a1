import { describe, expect, it } from 'vitest'
import { createJournal, type JournalEntry } from './journal.js'
import { base64Utf8, entryView, isBinaryText } from './view.js'

/** The entry of one POST with `body`, answered with `answer`. */
function entryOf(body: string, answer = '{}'): JournalEntry {
  const journal = createJournal({ limit: 1, now: () => 0 })
  const headers = { 'content-type': 'application/json' }
  journal.record({ method: 'POST', path: '/v1/pets', query: '', headers, body }, { status: 400, headers, body: answer }, { arrival: 1 })
  return journal.all()[0] as JournalEntry
}

describe('how the admin API shows a body', () => {
  it('counts as text a body with tabs, line feeds, carriage returns, quotes and non-ASCII characters', () => {
    expect(isBinaryText('{"name":"Rex\t\\"é😀"}\r\n')).toBe(false)
  })

  it('counts as not text a body with any other control character (U+0000 to U+001F)', () => {
    for (const code of [0x00, 0x01, 0x08, 0x0b, 0x0c, 0x0e, 0x1f]) expect(isBinaryText(`{}${String.fromCharCode(code)}`)).toBe(true)
  })

  it('writes the base64 of the UTF-8 bytes', () => {
    expect(base64Utf8('\u0000é')).toBe(Buffer.from([0, 0xc3, 0xa9]).toString('base64'))
    expect(base64Utf8('\u0000'.repeat(100_000))).toBe(Buffer.alloc(100_000).toString('base64'))
  })

  it('leaves an entry with text bodies as it is', () => {
    const entry = entryOf('{"name":"Rex"}')
    expect(entryView(entry)).toBe(entry)
  })

  it('shows a request body of NUL bytes as base64, marked bodyEncoding, without the parsed body', () => {
    const view = entryView(entryOf('\u0000'.repeat(20_000)))
    expect(view.bodyEncoding).toBe('base64')
    expect(view).not.toHaveProperty('body')
    expect(Buffer.from(view.bodyText ?? '', 'base64')).toEqual(Buffer.alloc(16 * 1024))
  })

  it('keeps the JSON of a NUL body within 4/3 of its bytes, where escaping it took 6 times', () => {
    const view = entryView(entryOf('\u0000'.repeat(16 * 1024)))
    expect(JSON.stringify(view.bodyText).length).toBeLessThan((16 * 1024 * 4) / 3 + 8)
  })

  it('shows a response body with control characters as base64, marked responseBodyEncoding', () => {
    const view = entryView(entryOf('{}', '\u0001binary'))
    expect(view.responseBodyEncoding).toBe('base64')
    expect(Buffer.from(view.responseBody, 'base64').toString()).toBe('\u0001binary')
    expect(view.bodyText).toBe('{}')
  })
})
