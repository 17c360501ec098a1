/**
 * The OpenAPI 3.1 document of the Pet Store spec, built from the same zod schemas the mock validates with. Each
 * operation lists every status it answers, the spec's and the ones the mock adds where the spec is silent (408, 410,
 * 413, 415, 501, 507, and the 5xx of chaos faults), each with the Error body, so a generated client knows them all
 * (docs/spec-decisions.md row 52). `default` describes only answers that are no operation's: another path or method
 * (404, 405), the mock's control headers.
 *
 * Every parameter, request body and response has an example, from the zod schemas' `.meta({ examples })`:
 * test/in-process/openapi-examples.test.ts validates them and sends them to the mock. An operation's request examples
 * and its success response's are named alike (`examples: { LIST_PETS: { value } }`): Specmatic reads only named
 * examples and pairs a request with the response of the same name, so its contract test needs no example files of its
 * own. The Error responses, which no request example provokes, keep the singular `example`.
 */
import { z } from 'zod'
import { headerComponents } from './openapi-headers.js'
import { ErrorSchema, NewPetSchema, PetSchema, PetStatusSchema, PetsSchema } from './schemas.js'
import { API_VERSION, DEFAULT_MAX_NAME_LENGTH, OPERATIONS, type OperationId, PAGE_SIZE, SUNSET } from './spec.js'

type Json = Record<string, unknown>

const COMPONENTS = { PetStatus: PetStatusSchema, NewPet: NewPetSchema, Pet: PetSchema, Pets: PetsSchema, Error: ErrorSchema }
type Component = keyof typeof COMPONENTS

/** The first of a schema's `.meta({ examples })` (src/schemas.ts): the one source of the document's examples. */
function exampleOf(schema: z.ZodType): unknown {
  const examples = schema.meta()?.examples
  if (!Array.isArray(examples) || examples.length === 0) throw new Error('[petstore-mock] A schema of the OpenAPI document has no example.')
  return examples[0]
}

/** The request examples, from the Pets example: a tool sending them to the default world gets exactly that page. */
function requestExamples(): { petId: unknown; limit: number; status: unknown } {
  const pets = exampleOf(PetsSchema) as { id: unknown }[]
  return { petId: (exampleOf(PetSchema) as { id: unknown }).id, limit: pets.length, status: exampleOf(PetStatusSchema) }
}

function componentSchemas(maxNameLength: number): Record<string, Json> {
  const registry = z.registry<{ id: string }>()
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id })
  const convert = (io: 'input' | 'output') =>
    z.toJSONSchema(registry, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${id}`,
      override: (ctx) => {
        // int64 fields are bigints inside the mock and integers on the wire.
        if (ctx.zodSchema._zod.def.type === 'bigint') {
          ctx.jsonSchema.type = 'integer'
          ctx.jsonSchema.format = 'int64'
        }
      },
    }).schemas as Record<string, Json>
  const output = convert('output')
  // NewPet as the mock reads it: unknown fields are accepted and ignored.
  const input = convert('input')
  const schemas: Record<string, Json> = {}
  for (const id of Object.keys(COMPONENTS)) {
    const { $schema: _schema, $id: _id, ...schema } = (id === 'NewPet' ? input[id] : output[id]) as Json
    schemas[id] = schema
  }
  // The mock's limit on a new pet's name (the spec shows none: docs/spec-decisions.md row 4), counted in code points
  // as maxLength is. Only NewPet: a pet set up or imported with a longer name is still a Pet.
  const name = (schemas.NewPet as { properties?: Record<string, Json> }).properties?.name
  if (name) name.maxLength = maxNameLength
  return schemas
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` })
const RATE_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
}
const DEPRECATION_HEADERS = {
  Deprecation: ref('headers', 'Deprecation'),
  Sunset: ref('headers', 'Sunset'),
  Link: ref('headers', 'Link'),
}
/** An example under a name (`examples: { NAME: { value } }`), the form Specmatic reads; the name pairs a request with its answer. */
const named = (name: string, value: unknown) => ({ examples: { [name]: { value } } })
const json = (schema: Component, example = exampleOf(COMPONENTS[schema]), name?: string) => ({
  'application/json': { schema: ref('schemas', schema), ...(name === undefined ? { example } : named(name, example)) },
})

/** A success response, with the caller's `X-RateLimit-*` headers; its example named as the request's that gets it. */
function success(description: string, schema: Component, name: string, headers: Json = {}): Json {
  return { description, headers: { ...RATE_HEADERS, ...headers }, content: json(schema, undefined, name) }
}

/** An Error response, once its status is known: its example carries that status, as the mock's answer does. */
type ErrorResponse = (status: number) => Json

/**
 * An Error response from in front of the core (the server, a chaos fault): no `X-RateLimit-*` or deprecation headers.
 * Its description is `code: text`; its example says `text` under `code`.
 */
function outside(code: string, text: string, headers: Json = {}, description = `${code}: ${text}`): ErrorResponse {
  const message = `${text[0]?.toUpperCase()}${text.slice(1)}.`
  return (status) => ({ description, headers, content: json('Error', { code, message, status }) })
}

/** An Error response the core answers after the key check: with the caller's `X-RateLimit-*` headers. */
function error(code: string, text: string, headers: Json = {}): ErrorResponse {
  return outside(code, text, { ...RATE_HEADERS, ...headers })
}

/** Only a scenario's chaos fault answers these (docs/spec-decisions.md, row 39): never the default scenario. */
function chaos(code: string, also = ''): ErrorResponse {
  return outside(code, `only from a scenario's chaos fault (never in the default scenario; not a response the spec documents)${also}`, {
    'Retry-After': {
      description: 'Seconds to wait, when the fault sets retryAfter (the flaky and outage scenarios do)',
      schema: { type: 'integer', minimum: 1 },
    },
  })
}

/** Each Error response given its status, the key it is listed under. */
function withStatus(listed: Record<string, Json | ErrorResponse>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(listed).map(([status, response]) => [status, typeof response === 'function' ? response(Number(status)) : response]),
  )
}

/**
 * Every status an operation answers: its own, then the ones every operation shares, in the order
 * of checks (docs/spec-decisions.md, row 21): key (401), rate limit (429), body size (413), and the
 * answers from in front of the core (408, the chaos 5xx). `default` holds only answers that are no
 * operation's: another path or method, and the mock's own control headers.
 */
function responses(own: Record<string, Json | ErrorResponse>, deprecated = false): Json {
  const core = withStatus({
    ...own,
    '401': error('unauthorized', 'missing, malformed or unknown API key', { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') }),
    '413': error('payload_too_large', 'a request body over the size limit (1 MiB by default, option maxBodyBytes), whatever the operation'),
    '429': error('rate_limited', 'a minute or day window used up (key_temporarily_banned: retried before Retry-After too often)', {
      'Retry-After': ref('headers', 'Retry-After'),
    }),
  })
  // The deprecated operation's headers are on every answer of the core (docs/spec-decisions.md, row 15).
  if (deprecated) for (const response of Object.values(core)) response.headers = { ...(response.headers as Json), ...DEPRECATION_HEADERS }
  const all: Record<string, Json> = {
    ...core,
    ...withStatus({
      '408': outside('request_timeout', 'standalone server only: the request was not whole within the timeout (30 s by default)'),
      '500': outside('internal_error', "a scenario's chaos fault, or the mock failing (a bug, or a handler of yours that threw)"),
      '502': chaos('bad_gateway'),
      '503': chaos(
        'service_unavailable',
        '; also store_unavailable (--redis, Redis unreachable), state_file_unavailable (--state-file not written)',
      ),
      '504': chaos('gateway_timeout'),
    }),
    default: outside(
      'route_not_found',
      'no operation at this path',
      { ...RATE_HEADERS, Allow: { description: 'The methods of this path (405 only)', schema: { type: 'string' } } },
      'No answer of this operation, described so that every answer of the mock is: a path under /v1 that no operation has (404 route_not_found), ' +
        "another method on this path (405 method_not_allowed, with Allow and the caller's X-RateLimit-* headers; on /pets/{petId} with the deprecation headers too), " +
        "and the mock's own controls (400 unknown_scenario for X-Mock-Scenario, 400 invalid_session for X-Mock-Session, 400 bad_request for an HTTP request the server cannot parse). See docs/errors.md.",
    )(404),
  }
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)))
}

function listPetsDocs(): Json {
  const { limit, status } = requestExamples()
  // `example` beside `examples`: Dredd's OpenAPI parser reads a parameter's example only from its schema's `example`.
  const page = {
    type: 'integer',
    minimum: PAGE_SIZE.min,
    maximum: PAGE_SIZE.max,
    default: PAGE_SIZE.default,
    examples: [limit],
    example: limit,
  }
  return {
    summary: 'List animals, optionally filtered by status and limited in page size',
    parameters: [
      { name: 'limit', in: 'query', required: false, ...named('LIST_PETS', limit), schema: page },
      { name: 'status', in: 'query', required: false, ...named('LIST_PETS', status), schema: ref('schemas', 'PetStatus') },
    ],
    responses: responses({
      '200': success('Success', 'Pets', 'LIST_PETS'),
      '400': error(
        'invalid_query_parameter',
        `a limit outside ${PAGE_SIZE.min}..${PAGE_SIZE.max} or not an integer, an unknown status, or either repeated (not with queryValidation: 'lenient')`,
      ),
    }),
  }
}

function createPetDocs(): Json {
  return {
    summary: 'Add an animal',
    requestBody: { required: true, content: json('NewPet', undefined, 'CREATE_PET') },
    responses: responses({
      '201': success('Animal added; id is assigned by the service', 'Pet', 'CREATE_PET', { Location: ref('headers', 'Location') }),
      '400': error(
        'invalid_body',
        'body missing required fields or with invalid values, every problem listed (also no body, or not UTF-8); or invalid_json, or ' +
          'unsupported_media_type (not application/json, a charset other than UTF-8, or a Content-Encoding)',
      ),
      '415': error('unsupported_media_type', 'only with the option mediaTypeErrorStatus: 415 (--media-type-status 415); 400 by default'),
      '507': error('id_space_exhausted', 'no int64 id is left (only after importing a state whose nextId is the int64 maximum)'),
    }),
  }
}

function getPetDocs(): Json {
  const { petId } = requestExamples()
  const sunset = new Date(SUNSET).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
  return {
    summary: 'Fetch one animal by its identifier',
    description: `Deprecated: to be removed on ${sunset}. Use GET /pets with the status filter.`,
    parameters: [
      {
        name: 'petId',
        in: 'path',
        required: true,
        ...named('GET_PET', petId),
        schema: { type: 'integer', format: 'int64', examples: [petId], example: petId },
      },
    ],
    responses: responses(
      {
        '200': success('Animal found', 'Pet', 'GET_PET'),
        '404': error('pet_not_found', 'no pet has this id, or it is not an int64'),
        '410': error('gone', `the operation was removed on ${sunset} (on the store's clock); use GET /pets with the status filter`),
      },
      true,
    ),
  }
}

/** What the document says of each operation, beyond its id, method and path (from `OPERATIONS`). */
function operationDocs(): Record<OperationId, Json> {
  return {
    listPets: listPetsDocs(),
    createPet: createPetDocs(),
    getPet: getPetDocs(),
    listOrders: {
      summary: 'List orders (store group)',
      description: 'The spec lists this operation but does not show its details; petstore-mock answers 501 not_implemented.',
      responses: responses({ '501': error('not_implemented', 'the spec lists this operation but does not define it') }),
    },
  }
}

function paths(): Json {
  const docs = operationDocs()
  const out: Record<string, Json> = {}
  for (const operation of OPERATIONS) {
    out[operation.path] ??= {}
    ;(out[operation.path] as Json)[operation.method.toLowerCase()] = {
      operationId: operation.id,
      ...(operation.deprecated ? { deprecated: true } : {}),
      ...docs[operation.id],
    }
  }
  return out
}

/**
 * The OpenAPI 3.1 document the mock serves (also at `GET /__mock/openapi.json` on the standalone server).
 * `maxNameLength` is the option of the same name (default 1,000), the `maxLength` of NewPet's `name`.
 *
 * @example
 * import { openApiDocument } from 'petstore-mock'
 * writeFileSync('petstore.openapi.json', JSON.stringify(openApiDocument(), null, 2))
 */
export function openApiDocument(options: { serverUrl?: string; maxNameLength?: number | undefined } = {}): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store',
      version: API_VERSION,
      description: 'The Pet Store HTTP/JSON API, as served by petstore-mock. All request and response bodies are application/json.',
    },
    servers: [{ url: options.serverUrl ?? 'http://127.0.0.1:4010/v1', description: 'petstore-mock' }],
    security: [{ bearerAuth: [] }],
    paths: paths(),
    components: {
      schemas: componentSchemas(options.maxNameLength ?? DEFAULT_MAX_NAME_LENGTH),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>, e.g. Bearer test-pro' },
      },
      headers: headerComponents(),
    },
  }
}
