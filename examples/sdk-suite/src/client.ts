/**
 * A small Pet Store SDK built on ky, the way an SDK team would write it: typed from the mock's
 * exported types, honouring Retry-After on 429 and 503 (ky's `retry.afterStatusCodes`).
 */
import ky, { HTTPError, type KyInstance } from 'ky'
import type { ErrorBody, NewPet, Pet, PetStatus } from 'petstore-mock'

/** A Pet as the SDK returns it: int64 fields as numbers (ids beyond 2^53 would need a lossless parser). */
export type PetDto = Omit<Pet, 'id' | 'categoryId'> & { id: number; categoryId: number }
export type NewPetDto = Omit<NewPet, 'categoryId'> & { categoryId: number }

/** An API error with the spec's Error body. */
export class PetStoreError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'PetStoreError'
  }
}

export interface ClientOptions {
  baseUrl: string
  apiKey: string
  /** Any fetch function: the platform's, or `petStore.fetch` in tests. */
  fetch?: typeof fetch
  /** Retries after 429/503 (waiting for Retry-After). Default 3. */
  retries?: number
}

export function createPetStoreClient(options: ClientOptions) {
  const http: KyInstance = ky.create({
    prefixUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
    retry: {
      limit: options.retries ?? 3,
      methods: ['get', 'post'],
      statusCodes: [429, 503],
      afterStatusCodes: [429, 503],
      maxRetryAfter: 120_000,
    },
    timeout: 130_000,
  })
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if (error instanceof HTTPError) {
        const body = (await error.response.json().catch(() => ({}))) as Partial<ErrorBody>
        throw new PetStoreError(error.response.status, body.code ?? 'unknown', body.message ?? error.message)
      }
      throw error
    }
  }
  return {
    listPets: (query: { limit?: number; status?: PetStatus } = {}) =>
      call(() =>
        http.get('pets', { searchParams: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) }).json<PetDto[]>(),
      ),
    createPet: (pet: NewPetDto) => call(() => http.post('pets', { json: pet }).json<PetDto>()),
    getPet: (id: number) => call(() => http.get(`pets/${id}`).json<PetDto>()),
  }
}
