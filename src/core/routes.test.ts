/**
 * Routing against the spec's endpoint list (`GET /pets`, `POST /pets`, `GET /pets/{petId}`, `GET /store/orders`):
 * the paths are matched by their pattern, in the spec's order.
 */
import { describe, expect, it } from 'vitest'
import { matchRoute } from './api.js'

describe('matchRoute', () => {
  it('finds each operation of the spec, with HEAD as GET', () => {
    expect(matchRoute('GET', '/pets')).toEqual({ ok: true, operation: 'listPets' })
    expect(matchRoute('HEAD', '/pets')).toEqual({ ok: true, operation: 'listPets' })
    expect(matchRoute('POST', '/pets')).toEqual({ ok: true, operation: 'createPet' })
    expect(matchRoute('GET', '/pets/7')).toEqual({ ok: true, operation: 'getPet', petId: '7' })
    expect(matchRoute('HEAD', '/pets/abc')).toEqual({ ok: true, operation: 'getPet', petId: 'abc' })
    expect(matchRoute('GET', '/store/orders')).toEqual({ ok: true, operation: 'listOrders' })
  })

  it('answers 405 with the methods of the path', () => {
    expect(matchRoute('DELETE', '/pets')).toEqual({
      ok: false,
      code: 'method_not_allowed',
      allow: 'GET, HEAD, POST',
      operations: ['listPets', 'createPet'],
    })
    expect(matchRoute('POST', '/pets/7')).toEqual({ ok: false, code: 'method_not_allowed', allow: 'GET, HEAD', operations: ['getPet'] })
    expect(matchRoute('PUT', '/store/orders')).toEqual({
      ok: false,
      code: 'method_not_allowed',
      allow: 'GET, HEAD',
      operations: ['listOrders'],
    })
  })

  it('answers 404 for a path of no operation', () => {
    for (const path of ['/pets/', '/pets/7/', '/pets//', '/Pets', '/pets?x', '/store', '/store/orders/', '', '/', '/pets/7/toys']) {
      expect(matchRoute('GET', path), path).toEqual({ ok: false, code: 'route_not_found' })
    }
  })

  it('does not take a method name from the object prototype for an operation', () => {
    for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(matchRoute(method, '/pets')).toMatchObject({ ok: false, code: 'method_not_allowed' })
      expect(matchRoute(method, '/pets/7')).toMatchObject({ ok: false, code: 'method_not_allowed' })
    }
  })
})
