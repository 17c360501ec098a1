import { describe, expect, it } from 'vitest'
import { parseJson, parseJsonReadable, serializePet, stringifyJson, toExactNumber, utf8Length } from './json.js'

describe('toExactNumber', () => {
  it('reads the largest int64 exactly', () => {
    expect(toExactNumber('9223372036854775807')).toBe(9223372036854775807n)
  })
  it('reads integer-valued decimal and exponent forms as integers', () => {
    expect(toExactNumber('1.0')).toBe(1n)
    expect(toExactNumber('1e3')).toBe(1000n)
    expect(toExactNumber('-2.50e1')).toBe(-25n)
    expect(toExactNumber('0.0')).toBe(0n)
  })
  it('keeps a fraction as a number so it fails integer checks', () => {
    expect(toExactNumber('1.5')).toBe(1.5)
    expect(toExactNumber('15e-1')).toBe(1.5)
  })
  it('turns a huge exponent into a value past int64 without building a huge string', () => {
    expect(toExactNumber('1e999999999') as bigint).toBeGreaterThan(2n ** 63n)
  })
})

describe('parseJson', () => {
  it('gives bigints for integers and reports invalid JSON', () => {
    expect(parseJson('{"a":9223372036854775807}')).toEqual({ ok: true, value: { a: 9223372036854775807n } })
    expect(parseJson('{"a":').ok).toBe(false)
  })
})

describe('serializePet', () => {
  it('writes fields in the spec order with exact int64 digits and omits a missing status', () => {
    expect(serializePet({ id: 9223372036854775807n, name: 'Rex "the" dog', categoryId: -1n })).toBe(
      '{"id":9223372036854775807,"name":"Rex \\"the\\" dog","categoryId":-1}',
    )
    expect(serializePet({ id: 1n, name: 'A', categoryId: 2n, status: 'sold' })).toBe('{"id":1,"name":"A","categoryId":2,"status":"sold"}')
  })
})

describe('utf8Length', () => {
  it('counts UTF-8 bytes, as the wire does', () => {
    for (const text of ['', 'abc', 'é', '€uro', '🐶 dog', 'a\u{10FFFF}b']) {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length)
    }
  })
})

describe('stringifyJson and parseJsonReadable', () => {
  it('round-trip int64 values exactly and keep small integers as numbers', () => {
    const text = stringifyJson({ big: 9223372036854775807n, small: 5, name: 'a\u0000int64:1' })
    expect(text).toBe('{"big":9223372036854775807,"small":5,"name":"a\\u0000int64:1"}')
    expect(parseJsonReadable(text)).toEqual({ ok: true, value: { big: 9223372036854775807n, small: 5, name: 'a\u0000int64:1' } })
  })
})
