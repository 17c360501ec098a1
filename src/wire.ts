/**
 * The API's JSON as a client sees it, for `fetch(...).json()`, `JSON.stringify` and generated clients: ids
 * and category ids are plain numbers, as `JSON.parse` gives them. Inside the mock they are exact int64
 * `bigint`s (`PetRecord`); a `number` holds integers exactly only up to 2^53 (`Number.MAX_SAFE_INTEGER`,
 * 9007199254740991): larger ids lose their last digits in `JSON.parse`. Read those from the response text
 * with a lossless JSON parser (docs/in-process.md, "The API's types, and int64 ids").
 *
 * @see ../shared/spec/pet-store-service.md "Resources and their fields"
 */
import type { PET_STATUSES } from './spec.js'

/** Availability status of an animal. */
export type PetStatus = (typeof PET_STATUSES)[number]

/**
 * The request body of `POST /v1/pets`.
 *
 * @example
 * const body: NewPet = { name: 'Rex', categoryId: 2 }
 * await fetch('/v1/pets', { method: 'POST', headers, body: JSON.stringify(body) })
 */
export interface NewPet {
  name: string
  /** int64 in the spec: exact in a `number` up to 2^53. */
  categoryId: number
  status?: PetStatus
}

/**
 * An animal as the API returns it.
 *
 * @example
 * const pet: Pet = await (await fetch('/v1/pets/1', { headers })).json()
 */
export interface Pet {
  /** int64, assigned by the service: exact in a `number` up to 2^53. */
  id: number
  name: string
  categoryId: number
  status?: PetStatus
}

/** `GET /v1/pets`: an array of Pet. */
export type Pets = Pet[]

/**
 * Every error response's body.
 *
 * @example
 * const error: ErrorBody = await response.json() // { code: 'pet_not_found', message: '…', status: 404 }
 */
export interface ErrorBody {
  /** Machine-readable: the codes are listed in docs/errors.md. */
  code: string
  message: string
  /** The HTTP status of the response. */
  status: number
}
