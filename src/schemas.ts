/**
 * The Pet Store data model as zod schemas: one source for the store's records, request validation
 * and the OpenAPI document's component schemas.
 *
 * Integers of format int64 are `bigint` everywhere inside petstore-mock, so that values beyond
 * 2^53 (up to 9223372036854775807) survive a round trip byte-exact.
 *
 * @see ../shared/spec/pet-store-service.md "Resources and their fields"
 */
import { z } from 'zod'
import { PET_STATUSES } from './spec.js'

export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n

export { PET_STATUSES }

/** Availability status of an animal. */
export const PetStatusSchema = z.enum(PET_STATUSES, { error: () => `status must be one of ${PET_STATUSES.join(', ')}` }).meta({
  id: 'PetStatus',
  description: 'Availability status',
  examples: ['available'],
})
export type PetStatus = z.infer<typeof PetStatusSchema>

const int64 = (field: string) =>
  z
    .bigint({
      error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be an integer`),
    })
    .min(INT64_MIN, { error: `${field} must be an int64 (at least ${INT64_MIN})` })
    .max(INT64_MAX, { error: `${field} must be an int64 (at most ${INT64_MAX})` })

/**
 * The first two pets of the default world (seed 1), on the wire: the OpenAPI document's examples of Pet and Pets come
 * from here, and its `petId`, `limit` and `status` examples from them, so a tool sending those examples to the mock gets
 * these answers (test/in-process/openapi-examples.test.ts asks the mock).
 */
const PET_EXAMPLES = [
  { id: 1, name: 'Gus', categoryId: 8, status: 'available' },
  { id: 2, name: 'Daisy', categoryId: 2, status: 'available' },
]

const name = z.string({
  error: (issue) => (issue.input === undefined ? 'name is required' : 'name must be a string'),
})

/**
 * Request body of `POST /pets`. Numbers arrive as `bigint` (see `parseJson`), so a fraction
 * such as `1.5` fails the `categoryId` check with "must be an integer".
 */
export const NewPetSchema = z
  .object({
    name: name.meta({ description: "The animal's name" }),
    categoryId: int64('categoryId').meta({
      description: 'Identifier of the category the animal belongs to',
    }),
    status: PetStatusSchema.optional(),
  })
  .meta({
    id: 'NewPet',
    description: 'Request body for creating an animal',
    examples: [{ name: 'Rex', categoryId: 2, status: 'available' }],
  })
export type NewPetRecord = z.infer<typeof NewPetSchema>

/** An animal as returned: all fields of NewPet plus its `id`. */
export const PetSchema = z
  .object({
    id: int64('id').meta({ description: 'Unique identifier assigned by the service on creation' }),
    name: z.string().meta({ description: "The animal's name" }),
    categoryId: int64('categoryId').meta({
      description: 'Identifier of the category the animal belongs to',
    }),
    status: PetStatusSchema.optional(),
  })
  .meta({ id: 'Pet', description: 'Animal as returned', examples: [PET_EXAMPLES[0]] })
export type PetRecord = z.infer<typeof PetSchema>

export const PetsSchema = z.array(PetSchema).meta({ id: 'Pets', description: 'A list of Pet', examples: [PET_EXAMPLES] })

/** The spec's Error body, carried by every error response. */
export const ErrorSchema = z
  .object({
    code: z.string().meta({ description: 'Machine-readable error code' }),
    message: z.string().meta({ description: 'Human-readable description' }),
    status: z.number().int().min(100).max(599).meta({ description: 'The HTTP status code of the response' }),
  })
  .meta({ id: 'Error' })

const int64Input = z.union([z.bigint(), z.number().int()]).transform((value, ctx) => {
  const big = BigInt(value)
  if (big < INT64_MIN || big > INT64_MAX) {
    ctx.addIssue({ code: 'custom', message: 'must be an int64' })
    return z.NEVER
  }
  return big
})

/**
 * Schema of the records in `petStore.pets` (the @msw/data collection). It accepts plain numbers
 * for `id` and `categoryId` in set-up code and stores them as `bigint`.
 *
 * @example
 * await petStore.pets.create({ id: 1000, name: 'Rex', categoryId: 2, status: 'sold' })
 */
export const PetRecordSchema = z.object({
  id: int64Input,
  name: z.string(),
  categoryId: int64Input,
  status: PetStatusSchema.optional(),
})
export type PetRecordInput = z.input<typeof PetRecordSchema>
