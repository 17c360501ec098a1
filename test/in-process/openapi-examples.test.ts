/**
 * Every parameter, request body and response of the OpenAPI document has an example that validates against its
 * schema, so Dredd (which needs an example for each required path parameter), Specmatic and Portman run against the
 * document unedited (docs/api.md). An operation's request examples are named after the success response they get
 * (`examples: { LIST_PETS: { value } }`), the one form Specmatic reads: it pairs them by name. The request examples are
 * sent to the default world (seed 1, 50 pets) and answer the response examples, so a tool sending them gets a 2xx,
 * not a 404 for an id the mock never had.
 */
import { describe, expect, it } from 'vitest'
import { ERRORS } from '../../src/core/errors.js'
import { createPetStore, openApiDocument } from '../../src/index.js'
import { expectConformsToOpenApi, schemaProblems } from '../support/openapi.js'

type Json = Record<string, unknown>

const BASE = 'https://api.petstore.test/v1'
const AUTH = { Authorization: 'Bearer test-pro' }

interface Operation {
  where: string
  parameters?: ({ name: string; in: string; schema: Json } & Examples)[]
  requestBody?: { content: Record<string, Json> }
  responses: Record<string, { content?: Record<string, Json> }>
}

/** An example, singular (`example`) or named (`examples: { NAME: { value } }`, one name), as OpenAPI allows either. */
interface Examples {
  example?: unknown
  examples?: Record<string, { value: unknown }>
}
const hasExample = (holder: Examples): boolean => 'example' in holder || Object.keys(holder.examples ?? {}).length === 1
const exampleIn = (holder: Examples | undefined): unknown => holder?.example ?? Object.values(holder?.examples ?? {})[0]?.value
/** The names of the named examples these holders carry (parameters, request bodies, responses), each once. */
const namesIn = (holders: (Examples | undefined)[]): string[] => [
  ...new Set(holders.flatMap((holder) => Object.keys(holder?.examples ?? {}))),
]

function operations(document: Json): Operation[] {
  return Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      ...(operation as unknown as Operation),
      where: `${method.toUpperCase()} ${path}`,
    })),
  )
}

/** The problems of one media type's example: missing, or not valid against its schema. */
function contentProblems(content: Record<string, Json> | undefined, where: string): string[] {
  if (content === undefined) return [`${where} has no content`]
  return Object.entries(content).flatMap(([type, media]) =>
    hasExample(media) ? schemaProblems(media.schema as Json, exampleIn(media), `${where} ${type}`) : [`${where} ${type} has no example`],
  )
}

/** An Error example's code is in the catalogue (src/core/errors.ts) and its status is the one it is listed under. */
function errorProblems(example: unknown, status: string, where: string): string[] {
  const { code, status: said } = example as { code: keyof typeof ERRORS; status: number }
  if (!(code in ERRORS)) return [`${where}: ${code} is not in the error catalogue`]
  const expected = status === 'default' ? ERRORS[code].status : Number(status)
  return said === expected ? [] : [`${where}: the example says status ${said}, the response is ${expected}`]
}

/** Everything the walk finds missing or wrong in `document`; empty when every example is there and valid. */
function exampleProblems(document: Json): string[] {
  return operations(document).flatMap((operation) => [
    ...(operation.parameters ?? []).flatMap((parameter) => {
      const where = `${operation.where} parameter ${parameter.name}`
      return hasExample(parameter) ? schemaProblems(parameter.schema, exampleIn(parameter), where) : [`${where} has no example`]
    }),
    ...(operation.requestBody ? contentProblems(operation.requestBody.content, `${operation.where} request body`) : []),
    ...Object.entries(operation.responses).flatMap(([status, response]) => {
      const where = `${operation.where} ${status}`
      const problems = contentProblems(response.content, where)
      const error = response.content?.['application/json']
      const isError = (error?.schema as Json | undefined)?.$ref === '#/components/schemas/Error'
      return isError && problems.length === 0 ? errorProblems(error?.example, status, where) : problems
    }),
  ])
}

function operation(id: string): Operation {
  const found = operations(openApiDocument()).find((candidate) => (candidate as unknown as Json).operationId === id)
  if (!found) throw new Error(`no operation ${id}`)
  return found
}

const exampleOf = (id: string, parameter: string) => exampleIn(operation(id).parameters?.find((candidate) => candidate.name === parameter))
const bodyExample = (id: string, status: string) => exampleIn(operation(id).responses[status]?.content?.['application/json'])

describe('the examples of the OpenAPI document', () => {
  it('are on every parameter, request body and response, each valid against its schema', () => {
    expect(exampleProblems(openApiDocument())).toEqual([])
    // The walk covers every status the document lists: 2xx, the 4xx and 5xx, and default.
    const statuses = new Set(operations(openApiDocument()).flatMap((each) => Object.keys(each.responses)))
    expect([...statuses].sort()).toEqual(
      ['200', '201', '400', '401', '404', '408', '410', '413', '415', '429', '500', '501', '502', '503', '504', '507', 'default'].sort(),
    )
  })

  it('are on every component schema, each valid against it', () => {
    const schemas = openApiDocument().components as { schemas: Record<string, { examples?: unknown[] }> }
    for (const [name, schema] of Object.entries(schemas.schemas)) {
      for (const example of schema.examples ?? [])
        expect(schemaProblems({ $ref: `#/components/schemas/${name}` }, example, name)).toEqual([])
    }
    expect(schemas.schemas.Pet?.examples).toHaveLength(1)
  })

  it('are what the walk misses when one is taken away or does not validate', () => {
    const document = openApiDocument() as { paths: Record<string, Record<string, Operation>> }
    const getPet = document.paths['/pets/{petId}']?.get as Operation
    delete getPet.parameters?.[0]?.examples
    const listPets = document.paths['/pets']?.get as Operation
    const error = listPets.responses['400']?.content?.['application/json'] as { example: { status: number } }
    error.example = { ...error.example, status: 410 }
    delete listPets.responses['200']?.content?.['application/json']?.examples
    expect(exampleProblems(document)).toEqual([
      'GET /pets 200 application/json has no example',
      'GET /pets 400: the example says status 410, the response is 400',
      'GET /pets/{petId} parameter petId has no example',
    ])
  })

  it('send the default world requests that answer the response examples', async () => {
    const petStore = createPetStore()
    const petId = exampleOf('getPet', 'petId')
    expect(petId).toBe(1)
    const got = await petStore.fetch(`${BASE}/pets/${petId}`, { headers: AUTH })
    expect(got.status).toBe(200)
    expect(await got.json()).toEqual(bodyExample('getPet', '200'))

    const limit = exampleOf('listPets', 'limit')
    const status = exampleOf('listPets', 'status')
    const listed = await petStore.fetch(`${BASE}/pets?limit=${limit}&status=${status}`, { headers: AUTH })
    expect(listed.status).toBe(200)
    expect(await listed.json()).toEqual(bodyExample('listPets', '200'))

    const body = JSON.stringify(exampleIn(operation('createPet').requestBody?.content['application/json']))
    const created = await petStore.fetch(`${BASE}/pets`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body })
    expect(created.status).toBe(201)
    expectConformsToOpenApi('createPet', created, await created.text())
  })

  it("are named alike on each operation's request and its success response, so Specmatic pairs them", () => {
    const pairs = Object.fromEntries(
      ['listPets', 'createPet', 'getPet'].map((id) => {
        const { parameters = [], requestBody, responses } = operation(id)
        const success = Object.keys(responses).find((status) => status.startsWith('2')) ?? ''
        const request = namesIn([...parameters, requestBody?.content['application/json']])
        return [id, { request, response: namesIn([responses[success]?.content?.['application/json']]) }]
      }),
    )
    expect(pairs).toEqual({
      listPets: { request: ['LIST_PETS'], response: ['LIST_PETS'] },
      createPet: { request: ['CREATE_PET'], response: ['CREATE_PET'] },
      getPet: { request: ['GET_PET'], response: ['GET_PET'] },
    })
  })
})
