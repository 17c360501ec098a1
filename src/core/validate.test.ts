import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePetId, queryParams, validateListQuery, validateNewPet } from './validate.js'

describe('queryParams', () => {
  it('reads every query as URLSearchParams does, plain ones without decoding', () => {
    const part = fc.constantFrom('limit', 'status', '=', '&', '20', 'sold', '%20', '%', '+', '?', '#', ' ', 'é', '', 'x=', '==')
    const query = fc.array(part, { maxLength: 8 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(query, (text) => {
        const expected = new URLSearchParams(text)
        for (const name of ['limit', 'status', 'x', '']) expect(queryParams(text).getAll(name), text).toEqual(expected.getAll(name))
      }),
      { numRuns: 3_000 },
    )
  })
})

describe('validateListQuery', () => {
  it('reads an empty query as limit 20 with no status filter', () => {
    expect(validateListQuery('', 'strict')).toEqual({ ok: true, limit: 20, status: undefined, statusMatchesNothing: false })
  })
  it('accepts a limit of 1 or 100, with a known status', () => {
    expect(validateListQuery('limit=1&status=sold', 'strict')).toMatchObject({ ok: true, limit: 1, status: 'sold' })
    expect(validateListQuery('limit=100', 'strict')).toMatchObject({ ok: true, limit: 100 })
  })
  it.each(['0', '101', '-1', 'abc', '1.5', '', '+5', ' 5'])('rejects limit=%j naming the parameter', (raw) => {
    const result = validateListQuery(`limit=${encodeURIComponent(raw)}`, 'strict')
    expect(result.ok).toBe(false)
    expect(!result.ok && result.message).toContain('limit')
  })
  it('rejects a repeated limit with an unknown status, naming both in one message', () => {
    const result = validateListQuery('limit=1&limit=2&status=lost', 'strict')
    expect(result.ok).toBe(false)
    expect(!result.ok && result.message).toMatch(/limit must be given at most once.*status must be one of available, pending, sold/)
  })
  it('matches nothing for an unknown status when lenient', () => {
    expect(validateListQuery('limit=500&status=lost', 'lenient')).toEqual({
      ok: true,
      limit: 100,
      status: undefined,
      statusMatchesNothing: true,
    })
  })
  it('clamps limit when lenient', () => {
    expect(validateListQuery('limit=0', 'lenient')).toMatchObject({ ok: true, limit: 1 })
    expect(validateListQuery('limit=abc', 'lenient')).toMatchObject({ ok: true, limit: 20 })
  })
})

describe('validateNewPet', () => {
  const json = 'application/json'
  it('accepts a minimal body, dropping a client id or any unknown field', () => {
    expect(validateNewPet(json, '{"name":"Rex","categoryId":3,"id":99,"colour":"red"}')).toEqual({
      ok: true,
      pet: { name: 'Rex', categoryId: 3n },
    })
  })
  it('accepts a JSON media type with parameters, in any case', () => {
    expect(validateNewPet('Application/JSON; charset=utf-8', '{"name":"Rex","categoryId":3}').ok).toBe(true)
  })
  it('answers 415 for another media type or a body without one', () => {
    expect(validateNewPet('text/plain', '{}')).toMatchObject({ ok: false, code: 'unsupported_media_type' })
    expect(validateNewPet(undefined, '{"name":"a"}')).toMatchObject({ ok: false, code: 'unsupported_media_type' })
    expect(validateNewPet('application/jsonx', '{}')).toMatchObject({ ok: false, code: 'unsupported_media_type' })
  })
  it('requires a body', () => {
    expect(validateNewPet(undefined, undefined)).toMatchObject({ ok: false, code: 'invalid_body' })
    expect(validateNewPet(json, '  ')).toMatchObject({ ok: false, code: 'invalid_body' })
  })
  it('reports malformed JSON', () => {
    expect(validateNewPet(json, '{"name":')).toMatchObject({ ok: false, code: 'invalid_json' })
  })
  it.each([
    ['[]', 'an array'],
    ['null', 'null'],
    ['"x"', 'a string'],
    ['5', 'a number'],
  ])('rejects %s as not an object', (body, kind) => {
    const result = validateNewPet(json, body)
    expect(result).toMatchObject({ ok: false, code: 'invalid_body' })
    expect(!result.ok && result.message).toContain(kind)
  })
  it('lists every problem, not only the first', () => {
    const result = validateNewPet(json, '{"categoryId":1.5,"status":"lost"}')
    expect(!result.ok && result.message).toBe(
      'Invalid NewPet: name is required; categoryId must be an integer; status must be one of available, pending, sold.',
    )
  })
  it('rejects mistyped fields', () => {
    const result = validateNewPet(json, '{"name":5,"categoryId":"1"}')
    expect(!result.ok && result.message).toBe('Invalid NewPet: name must be a string; categoryId must be an integer.')
  })
  it('accepts the int64 bounds', () => {
    expect(validateNewPet(json, '{"name":"a","categoryId":9223372036854775807}')).toEqual({
      ok: true,
      pet: { name: 'a', categoryId: 9223372036854775807n },
    })
    expect(validateNewPet(json, '{"name":"a","categoryId":-9223372036854775808}').ok).toBe(true)
  })
  it('rejects a categoryId one past the int64 bounds', () => {
    const over = validateNewPet(json, '{"name":"a","categoryId":9223372036854775808}')
    expect(!over.ok && over.message).toContain('categoryId must be an int64')
  })
  it('rejects a null status, which is not a PetStatus', () => {
    expect(validateNewPet(json, '{"name":"a","categoryId":1,"status":null}').ok).toBe(false)
  })
})

describe('parsePetId', () => {
  it('reads int64 ids', () => {
    expect(parsePetId('42')).toBe(42n)
    expect(parsePetId('9223372036854775807')).toBe(9223372036854775807n)
  })
  it('refuses anything but an int64 id', () => {
    expect(parsePetId('9223372036854775808')).toBeUndefined()
    expect(parsePetId('1.5')).toBeUndefined()
    expect(parsePetId('abc')).toBeUndefined()
    expect(parsePetId('%E0%A4%A')).toBeUndefined()
  })
})
