/**
 * Requests several checks read, sent once per side: the first page, the largest page, one listed pet, an id no
 * pet has, the run's created pet, an operation without a key.
 */
import { PAGE_SIZE } from '../spec.js'
import { petsOf, UNUSED_ID } from './describe.js'
import { type Auth, type Exchange, type RunContext, type Side, type SideRequest, Skip } from './types.js'

/** `GET /pets?limit=1`: the run's first request, which also tells whether the target can be checked at all. */
export const probe = (side: Side): Promise<Exchange> => side.once('probe', () => side.send({ path: '/pets?limit=1', auth: 'key' }))

/** `GET /pets` without a limit. */
export const firstPage = (side: Side): Promise<Exchange> => side.once('list', () => side.send({ path: '/pets', auth: 'key' }))

/** `GET /pets?limit=100`: the largest page, the measure of "how many pets" on this side. */
export const largestPage = (side: Side): Promise<Exchange> =>
  side.once('list-max', () => side.send({ path: `/pets?limit=${PAGE_SIZE.max}`, auth: 'key' }))

/** How many pets the largest page holds (`Infinity` when it is no list: nothing then reads as "all of them"). */
export async function petCount(side: Side): Promise<number> {
  const pets = petsOf(await largestPage(side))
  return pets ? pets.length : Number.POSITIVE_INFINITY
}

/** The id of the first listed pet, as its exact digits. */
export async function listedPetId(side: Side): Promise<string> {
  const [pet] = petsOf(await largestPage(side)) ?? []
  const id = typeof pet === 'object' && pet !== null ? (pet as { id?: unknown }).id : undefined
  if (typeof id !== 'bigint' && typeof id !== 'number') throw new Skip(`the ${side.name} lists no pet with an id to fetch`)
  return String(id)
}

/** `GET /pets/{id}` of the first listed pet. */
export const listedPet = (side: Side): Promise<Exchange> =>
  side.once('pet', async () => side.send({ path: `/pets/${await listedPetId(side)}`, auth: 'key' }))

/** `GET /pets/9223372036854775807`: an id no pet has. */
export const unusedPet = (side: Side): Promise<Exchange> =>
  side.once('unused', () => side.send({ path: `/pets/${UNUSED_ID}`, auth: 'key' }))

/** The operations a key is asked for, as the spec lists them; `createPet` only when writes are allowed. */
export function operations(context: RunContext): { id: string; method: string; path: string }[] {
  return [
    { id: 'listPets', method: 'GET', path: '/pets' },
    ...(context.allowWrites ? [{ id: 'createPet', method: 'POST', path: '/pets' }] : []),
    { id: 'getPet', method: 'GET', path: '/pets/1' },
    { id: 'listOrders', method: 'GET', path: '/store/orders' },
  ]
}

/** `POST /pets` of `pet` as JSON with the main key, unless `request` gives other headers or the body's bytes. */
export const postPet = (side: Side, pet: object, request: Partial<SideRequest> = {}): Promise<Exchange> =>
  side.send({ method: 'POST', path: '/pets', auth: 'key', contentType: 'application/json', body: JSON.stringify(pet), ...request })

/** One operation sent with `auth` (no key, or a wrong one); a POST carries a valid NewPet marked as test data. */
export function withoutValidKey(
  side: Side,
  context: RunContext,
  auth: Auth,
  operation: { method: string; path: string },
): Promise<Exchange> {
  return side.once(`${auth} ${operation.method} ${operation.path}`, () =>
    operation.method === 'POST'
      ? postPet(side, { name: context.marker, categoryId: 1 }, { auth, path: operation.path })
      : side.send({ method: operation.method, path: operation.path, auth }),
  )
}

/** The run's pet: `POST /pets` with every field, named as test data. */
export const createdPet = (side: Side, context: RunContext): Promise<Exchange> =>
  side.once('created', () => postPet(side, { name: context.marker, categoryId: 1, status: 'pending' }))
