import { describe, expect, it } from 'vitest'
import { expectConformsToOpenApi, openApiProblems } from './openapi.js'

const RATE_HEADERS = { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '299', 'x-ratelimit-reset': '1780315260' }
const DEPRECATION_HEADERS = {
  deprecation: '@1767225600',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
}

function jsonResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json', ...RATE_HEADERS, ...headers } })
}

describe('expectConformsToOpenApi', () => {
  it('accepts a listing of pets', () => {
    const body = '[{"id":1,"name":"Rex","categoryId":2,"status":"sold"},{"id":2,"name":"Tom","categoryId":9223372036854775807}]'
    expect(() => expectConformsToOpenApi('listPets', jsonResponse(200, body), body)).not.toThrow()
  })

  it('accepts an error answered under the default response', () => {
    const body = '{"code":"method_not_allowed","message":"DELETE is not allowed","status":405}'
    expect(openApiProblems('listPets', jsonResponse(405, body, { allow: 'GET, POST' }), body)).toEqual([])
  })

  it('rejects a pet without a name', () => {
    const body = '{"id":1,"categoryId":2}'
    expect(() => expectConformsToOpenApi('getPet', jsonResponse(200, body, DEPRECATION_HEADERS), body)).toThrow(/name/)
  })

  it('rejects a pet with a status outside PetStatus', () => {
    const body = '{"id":1,"name":"Rex","categoryId":2,"status":"adopted"}'
    expect(openApiProblems('getPet', jsonResponse(200, body, DEPRECATION_HEADERS), body)).toEqual([
      expect.stringContaining('body does not match the schema'),
    ])
  })

  it('rejects a fractional id', () => {
    const body = '[{"id":1.5,"name":"Rex","categoryId":2}]'
    expect(openApiProblems('listPets', jsonResponse(200, body), body)).toEqual([expect.stringContaining('format')])
  })

  it('rejects an error body with extra fields or without status', () => {
    const body = '{"code":"pet_not_found","message":"No pet","detail":"x"}'
    expect(openApiProblems('getPet', jsonResponse(404, body, DEPRECATION_HEADERS), body)).toEqual([
      expect.stringMatching(/status.*additional|additional.*status/s),
    ])
  })

  it('rejects a body that is not JSON', () => {
    expect(openApiProblems('listPets', jsonResponse(200, 'not json'), 'not json')).toEqual([expect.stringContaining('body is not JSON')])
  })

  it('rejects a content type other than application/json', () => {
    const body = '[]'
    const response = new Response(body, { status: 200, headers: { 'content-type': 'text/plain', ...RATE_HEADERS } })
    expect(openApiProblems('listPets', response, body)).toEqual([expect.stringContaining('content-type is "text/plain"')])
  })

  it('rejects a 201 without its required Location header', () => {
    const body = '{"id":51,"name":"Rex","categoryId":2}'
    expect(openApiProblems('createPet', jsonResponse(201, body), body)).toEqual(['required header Location is missing'])
  })

  it('rejects a 401 without WWW-Authenticate: Bearer', () => {
    const body = '{"code":"unauthorized","message":"Missing API key","status":401}'
    expect(openApiProblems('listPets', jsonResponse(401, body, { 'www-authenticate': 'Basic' }), body)).toEqual([
      expect.stringContaining('header WWW-Authenticate'),
    ])
  })

  it('rejects a deprecated operation answering without its Sunset header', () => {
    const body = '{"id":1,"name":"Rex","categoryId":2}'
    const { sunset: _sunset, ...headers } = DEPRECATION_HEADERS
    expect(openApiProblems('getPet', jsonResponse(200, body, headers), body)).toEqual(['required header Sunset is missing'])
  })

  it('rejects a rate-limit header that is not an integer', () => {
    const body = '[]'
    expect(openApiProblems('listPets', jsonResponse(200, body, { 'x-ratelimit-remaining': 'many' }), body)).toEqual([
      expect.stringContaining('header X-RateLimit-Remaining'),
    ])
  })

  it('refuses an operation the document does not have', () => {
    expect(() => openApiProblems('deletePet', jsonResponse(200, '{}'), '{}')).toThrow('no operation "deletePet"')
  })
})
