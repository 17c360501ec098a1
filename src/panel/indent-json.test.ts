import { describe, expect, it } from 'vitest'
import { parseFrames } from './http-source.js'
import { indentJson } from './request-details.js'

describe('the panel shows JSON bodies indented, never re-parsed', () => {
  it('keeps every number as spelled, int64 ids beyond 2^53 included', () => {
    const text = '{"id":9223372036854775807,"tags":[],"o":{},"s":"a,b:{\\"x\\"} [1]","l":[1,2.50]}'
    const out = indentJson(text)
    expect(out).toContain('"id": 9223372036854775807,')
    expect(out).toContain('2.50')
    expect(out).toContain('"s": "a,b:{\\"x\\"} [1]"')
    expect(out).toContain('"tags": [],')
    expect(out.split('\n')).toHaveLength(10)
  })
})

describe('the event-stream reader of the server panel', () => {
  const stream = 'retry: 1000\n\n: ping\n\nid: 7\nevent: request\ndata: {"seq":7}\n\nevent: clock\r\ndata: a\r\ndata: b\r\n\r\nevent: quo'

  it('splits whole events, skipping comments, with their data lines joined', () => {
    const { frames } = parseFrames(stream)
    expect(frames).toEqual([
      { event: 'request', data: '{"seq":7}', id: '7' },
      { event: 'clock', data: 'a\nb', id: undefined },
    ])
  })

  it('keeps the unfinished rest', () => {
    const { rest } = parseFrames(stream)
    expect(rest).toBe('event: quo')
  })
})
