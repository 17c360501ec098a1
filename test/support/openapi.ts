/**
 * Checks a response against the OpenAPI document the mock publishes (`openApiDocument()`), with
 * ajv (JSON Schema draft 2020-12, the dialect of OpenAPI 3.1).
 *
 * @example
 * const response = await fetch('https://api.petstore.test/v1/pets', { headers: { Authorization: 'Bearer test-pro' } })
 * const text = await response.text()
 * expectConformsToOpenApi('listPets', response, text)
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { expect } from 'vitest'
import { openApiDocument } from '../../src/openapi.js'

type Json = Record<string, unknown>

const DOCUMENT_ID = 'https://petstore-mock.test/openapi.json'
const JSON_MEDIA_TYPE = /^application\/json[ \t]*(;|$)/i
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

const document = openApiDocument()

const ajv = new Ajv2020({ allErrors: true, strict: true })
// The document's top-level sections are not JSON Schema keywords; declaring them lets ajv hold the
// whole document as one schema, so every `#/components/...` reference resolves as written.
for (const keyword of ['openapi', 'info', 'servers', 'security', 'paths', 'components']) ajv.addKeyword(keyword)
// `example` is a keyword of OpenAPI 3.1's schema dialect (deprecated there, read by Dredd), not of JSON Schema's.
ajv.addKeyword('example')
// Bodies are parsed with JSON.parse, which rounds int64 values beyond 2^53: only integrality is
// checked here. Exactness of int64 is asserted on the raw text by the conformance suite.
ajv.addFormat('int64', { type: 'number', validate: Number.isInteger })
ajv.addSchema({ ...document, $id: DOCUMENT_ID })

const validators = new Map<string, ValidateFunction>()

/** A validator for the schema at `pointer` (`#/components/...`) or for an inline schema. */
function validatorFor(schema: Json, where: string): ValidateFunction {
  const key = typeof schema['$ref'] === 'string' ? schema['$ref'] : `${where}:${JSON.stringify(schema)}`
  let validate = validators.get(key)
  if (!validate) {
    const resolved = typeof schema['$ref'] === 'string' ? { $ref: `${DOCUMENT_ID}${schema['$ref']}` } : schema
    validate = ajv.compile(resolved)
    validators.set(key, validate)
  }
  return validate
}

/** The problems of `value` against `schema` (inline, or a `$ref` into the document); empty when it validates. */
export function schemaProblems(schema: Json, value: unknown, where: string): string[] {
  const validate = validatorFor(schema, where)
  return validate(value) ? [] : [`${where}: ${describeErrors(validate)}`]
}

function asObject(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`The OpenAPI document has no object at ${what}.`)
  return value as Json
}

/** Follows a local `$ref` (`#/components/headers/Location`) to the object it names. */
function deref(value: Json): Json {
  const ref = value['$ref']
  if (typeof ref !== 'string') return value
  let target: unknown = document
  for (const part of ref.replace(/^#\//, '').split('/')) target = asObject(target, ref)[part.replaceAll('~1', '/').replaceAll('~0', '~')]
  return deref(asObject(target, ref))
}

function findOperation(operationId: string): Json {
  for (const pathItem of Object.values(asObject(document['paths'], 'paths'))) {
    for (const method of HTTP_METHODS) {
      const operation = asObject(pathItem, 'a path item')[method]
      if (operation !== undefined && asObject(operation, method)['operationId'] === operationId) return asObject(operation, operationId)
    }
  }
  throw new Error(`The OpenAPI document has no operation "${operationId}".`)
}

function describeErrors(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' })
}

/**
 * The problems of `response` against the document's description of `operationId`; empty when it conforms.
 * Exported so the validator itself can be tested on responses that do not conform.
 */
export function openApiProblems(operationId: string, response: Response, bodyText: string): string[] {
  const operation = findOperation(operationId)
  const responses = asObject(operation['responses'], `${operationId}.responses`)
  const status = String(response.status)
  const documented = responses[status] ?? responses[`${status[0]}XX`] ?? responses['default']
  if (documented === undefined) return [`status ${status} is not documented for ${operationId} and it has no default response`]
  const described = deref(asObject(documented, `${operationId}.responses.${status}`))
  const problems: string[] = []

  const contentType = response.headers.get('content-type')
  if (contentType === null || !JSON_MEDIA_TYPE.test(contentType)) {
    problems.push(`content-type is ${JSON.stringify(contentType)}, expected application/json`)
  }

  const content = described['content'] === undefined ? undefined : asObject(described['content'], 'content')
  const media = content?.['application/json']
  if (media === undefined) {
    problems.push(`${operationId} documents no application/json body for status ${status}`)
  } else {
    const schema = asObject(asObject(media, 'application/json')['schema'], 'schema')
    let body: unknown
    try {
      body = JSON.parse(bodyText)
    } catch (error) {
      problems.push(`body is not JSON: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (body !== undefined) {
      const validate = validatorFor(schema, `${operationId}.${status}.body`)
      if (!validate(body)) problems.push(`body does not match the schema: ${describeErrors(validate)}`)
    }
  }

  const headers = described['headers'] === undefined ? {} : asObject(described['headers'], 'headers')
  for (const [name, definition] of Object.entries(headers)) {
    const header = deref(asObject(definition, name))
    const value = response.headers.get(name)
    if (value === null) {
      if (header['required'] === true) problems.push(`required header ${name} is missing`)
      continue
    }
    if (header['schema'] === undefined) continue
    const schema = asObject(header['schema'], `${name}.schema`)
    const validate = validatorFor(schema, `header ${name}`)
    // Header values are strings on the wire; an integer header must be written as one.
    const typed = schema['type'] === 'integer' ? (/^-?\d+$/.test(value) ? Number(value) : value) : value
    if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} does not match its schema (${describeErrors(validate)})`)
  }
  return problems
}

/**
 * Asserts that `response` (whose body was read into `bodyText`) is one the OpenAPI document describes
 * for `operationId`: a listed status or the `default`, an application/json body matching its schema,
 * and every header marked `required: true` present (and every documented header matching its schema).
 */
export function expectConformsToOpenApi(operationId: string, response: Response, bodyText: string): void {
  const problems = openApiProblems(operationId, response, bodyText)
  if (problems.length > 0) {
    expect.fail(
      `${operationId} answered ${response.status}, which the OpenAPI document does not describe:\n- ${problems.join('\n- ')}\nbody: ${bodyText.slice(0, 300)}`,
    )
  }
}
