/**
 * The OpenAPI 3.1 document of the Pet Store spec, built from the same zod schemas the mock
 * validates with. Statuses the spec lists are described one by one; the statuses the mock adds
 * where the spec is silent (405, 408, 410, 413, 501, 507, …) are covered by `default`, an Error.
 */
import { z } from 'zod'
import { ErrorSchema, NewPetSchema, PetSchema, PetStatusSchema, PetsSchema } from './schemas.js'
import { API_VERSION, OPERATIONS, type OperationId, PAGE_SIZE, SUNSET } from './spec.js'

type Json = Record<string, unknown>

const COMPONENTS = { PetStatus: PetStatusSchema, NewPet: NewPetSchema, Pet: PetSchema, Pets: PetsSchema, Error: ErrorSchema }

function componentSchemas(): Record<string, Json> {
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

function error(description: string, headers: Json = {}): Json {
  return { description, headers: { ...RATE_HEADERS, ...headers }, content: { 'application/json': { schema: ref('schemas', 'Error') } } }
}

function responses(map: Record<string, Json>, extraHeaders: Json = {}): Json {
  const all: Record<string, Json> = {
    ...map,
    '401': error('Missing or invalid API key', { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') }),
    '429': error('Rate limit exceeded, or the API key is temporarily banned', { 'Retry-After': ref('headers', 'Retry-After') }),
    default: error('Any other error the mock answers (405, 408, 410, 413, 501, 507, …); see docs/errors.md'),
  }
  for (const response of Object.values(all)) response.headers = { ...(response.headers as Json), ...extraHeaders }
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)))
}

/** What the document says of each operation, beyond its id, method and path (from `OPERATIONS`). */
function operationDocs(): Record<OperationId, Json> {
  const sunset = new Date(SUNSET).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
  return {
    listPets: {
      summary: 'List animals, optionally filtered by status and limited in page size',
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default },
        },
        { name: 'status', in: 'query', required: false, schema: ref('schemas', 'PetStatus') },
      ],
      responses: responses({
        '200': { description: 'Success', headers: RATE_HEADERS, content: { 'application/json': { schema: ref('schemas', 'Pets') } } },
      }),
    },
    createPet: {
      summary: 'Add an animal',
      requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'NewPet') } } },
      responses: responses({
        '201': {
          description: 'Animal added; id is assigned by the service',
          headers: { ...RATE_HEADERS, Location: ref('headers', 'Location') },
          content: { 'application/json': { schema: ref('schemas', 'Pet') } },
        },
        '400': error('Body missing required fields or containing invalid values'),
      }),
    },
    getPet: {
      summary: 'Fetch one animal by its identifier',
      description: `Deprecated: to be removed on ${sunset}. Use GET /pets with the status filter.`,
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } }],
      responses: responses(
        {
          '200': { description: 'Animal found', headers: RATE_HEADERS, content: { 'application/json': { schema: ref('schemas', 'Pet') } } },
          '404': error('The requested resource could not be found'),
        },
        DEPRECATION_HEADERS,
      ),
    },
    listOrders: {
      summary: 'List orders (store group)',
      description: 'The spec lists this operation but does not show its details; petstore-mock answers 501 not_implemented.',
      responses: responses({}),
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

function headerComponents(): Json {
  const integer = { schema: { type: 'integer' } }
  return {
    'X-RateLimit-Limit': { description: 'The limit currently applying (integer)', ...integer },
    'X-RateLimit-Remaining': { description: 'Requests remaining in the current window (integer)', ...integer },
    'X-RateLimit-Reset': { description: 'Unix timestamp at which the limit resets', ...integer },
    'Retry-After': { description: 'Seconds to wait before retrying', required: true, schema: { type: 'integer', minimum: 1 } },
    'WWW-Authenticate': { description: 'Always "Bearer"', required: true, schema: { type: 'string', const: 'Bearer' } },
    Location: { description: 'Path of the new animal', required: true, schema: { type: 'string' } },
    Deprecation: { description: 'RFC 9745: when the operation was deprecated', required: true, schema: { type: 'string' } },
    Sunset: {
      description: 'RFC 8594: when the operation is removed',
      required: true,
      schema: { type: 'string', const: new Date(SUNSET).toUTCString() },
    },
    Link: { description: 'The replacement operation (rel="successor-version")', required: true, schema: { type: 'string' } },
  }
}

/**
 * The OpenAPI 3.1 document the mock serves (also at `GET /__mock/openapi.json` on the standalone server).
 *
 * @example
 * import { openApiDocument } from 'petstore-mock'
 * writeFileSync('petstore.openapi.json', JSON.stringify(openApiDocument(), null, 2))
 */
export function openApiDocument(options: { serverUrl?: string } = {}): Json {
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
      schemas: componentSchemas(),
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } },
      headers: headerComponents(),
    },
  }
}
