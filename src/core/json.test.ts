import fc from 'fast-check'
import { parse } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { parseJson, parseJsonReadable, serializePet, stringifyJson, toExactNumber, utf8Length } from './json.js'

describe('toExactNumber', () => {
  it('reads the largest int64 exactly', () => {
    expect(toExactNumber('9223372036854775807')).toBe(9223372036854775807n)
  })
  it('reads an integer value written with a decimal point or an exponent as an integer', () => {
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
  it('gives bigints for integers', () => {
    expect(parseJson('{"a":9223372036854775807}')).toEqual({ ok: true, value: { a: 9223372036854775807n } })
  })
  it('reports invalid JSON', () => {
    expect(parseJson('{"a":').ok).toBe(false)
  })
})

describe('serializePet', () => {
  it('writes fields in the spec order, status last', () => {
    expect(serializePet({ id: 1n, name: 'A', categoryId: 2n, status: 'sold' })).toBe('{"id":1,"name":"A","categoryId":2,"status":"sold"}')
  })
  it('omits a missing status, writing int64 digits exactly', () => {
    expect(serializePet({ id: 9223372036854775807n, name: 'Rex "the" dog', categoryId: -1n })).toBe(
      '{"id":9223372036854775807,"name":"Rex \\"the\\" dog","categoryId":-1}',
    )
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
  it('round-trip int64 values exactly, leaving small integers as numbers', () => {
    const text = stringifyJson({ big: 9223372036854775807n, small: 5, name: 'a\u0000int64:1' })
    expect(text).toBe('{"big":9223372036854775807,"small":5,"name":"a\\u0000int64:1"}')
    expect(parseJsonReadable(text)).toEqual({ ok: true, value: { big: 9223372036854775807n, small: 5, name: 'a\u0000int64:1' } })
  })
})

describe('parseJson on flat objects (what a create sends)', () => {
  const lossless = (text: string): { ok: boolean; value?: unknown } => {
    try {
      return { ok: true, value: parse(text, null, toExactNumber) }
    } catch {
      return { ok: false }
    }
  }
  const agrees = (text: string): void => {
    const ours = parseJson(text)
    const theirs = lossless(text)
    expect(ours.ok, text).toBe(theirs.ok)
    if (ours.ok) expect(ours.value, text).toEqual(theirs.value)
  }

  it('reads a NewPet body exactly as the lossless parser does', () => {
    for (const text of [
      '{"name":"Rex","categoryId":3,"status":"available"}',
      ' {\n\t"name" : "Rex 🐕 犬" , "categoryId" : 9223372036854775807 }\r\n',
      '{"name":"Rex","categoryId":1e3}',
      '{"name":"Rex","categoryId":1.5}',
      '{"name":"Rex","categoryId":-0}',
      '{}',
      '{"name":"Rex","name":"Twice"}',
      '{"__proto__":"x"}',
      '{"name":"A\\"B"}',
      '{"name":"Rex",}',
      '{"name":"Rex"} x',
      '{"categoryId":01}',
      '{"name":"Rex","tags":[1]}',
      '{"name":null}',
    ])
      agrees(text)
  })

  it('agrees with the lossless parser on any JSON text, flat objects written any way included', () => {
    const key = fc.oneof(fc.constantFrom('name', 'categoryId', 'status', '__proto__', ''), fc.string({ maxLength: 6 }))
    const scalar = fc.oneof(
      fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
      fc.constantFrom('1e3', '-0', '0.0', '1E+2', 'true', 'null', '01', '1.', '-', '"a\\u0041"'),
    )
    const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n ')
    const flat = fc
      .array(fc.tuple(key, scalar, space, space), { maxLength: 5 })
      .map((pairs) => `{${pairs.map(([k, v, a, b]) => `${a}${JSON.stringify(k)}${b}:${a}${v}${b}`).join(',')}}`)
    fc.assert(fc.property(flat, agrees), { numRuns: 2_000 })
    fc.assert(fc.property(fc.json(), agrees), { numRuns: 1_000 })
    const broken = fc
      .tuple(flat, fc.nat(), fc.constantFrom('', '{', '}', ',', ':', '"', '\\', ' ', '1', 'x', '\n', '\u0001'))
      .map(([text, at, insert]) => text.slice(0, at % (text.length + 1)) + insert + text.slice((at % (text.length + 1)) + 1))
    fc.assert(fc.property(broken, agrees), { numRuns: 2_000 })
  })
})

describe('toExactNumber on plain integers', () => {
  it('gives the exact bigint of every integer spelling, on both sides of the 15-digit fast path', () => {
    const cases: [string, bigint][] = [
      ['0', 0n],
      ['-0', 0n],
      ['7', 7n],
      ['1023', 1023n],
      ['1024', 1024n],
      ['-5', -5n],
      ['999999999999999', 999_999_999_999_999n],
      ['9999999999999999', 9_999_999_999_999_999n],
      ['9223372036854775807', 9_223_372_036_854_775_807n],
      ['-9223372036854775808', -9_223_372_036_854_775_808n],
    ]
    for (const [raw, expected] of cases) expect(toExactNumber(raw)).toBe(expected)
  })

  it('still tells fractions apart', () => {
    expect(toExactNumber('1.5')).toBe(1.5)
    expect(toExactNumber('1.0')).toBe(1n)
    expect(toExactNumber('1e3')).toBe(1000n)
  })
})
