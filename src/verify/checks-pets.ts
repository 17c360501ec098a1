/**
 * `GET /pets/{petId}` and `POST /pets`: the spec's statuses and bodies, the deprecation, and the decisions about
 * ids, media types (no Content-Type, a charset, a Content-Encoding), a default status and `Location`
 * (docs/spec-decisions.md rows 2, 15, 16, 17, 20).
 */
import { gzipSync } from 'node:zlib'
import { PET_STATUSES, SUNSET } from '../spec.js'
import { optionPatch } from './config.js'
import { brief, petProblem, underBase } from './describe.js'
import { createdPet, listedPet, listedPetId, postPet, unusedPet } from './requests.js'
import { type Check, type Exchange, type Observation, type RunContext, type Side, Skip } from './types.js'

async function getOk(side: Side): Promise<Observation> {
  const id = await listedPetId(side)
  const answer = await listedPet(side)
  if (answer.status !== 200) return { summary: brief(answer), pass: false }
  const problem = petProblem(answer.json)
  if (problem !== undefined) return { summary: `200, but the body is not a Pet (${problem})`, pass: false }
  const same = String((answer.json as { id: unknown }).id) === id
  return { summary: same ? '200, the listed Pet' : '200, a Pet with another id', pass: same }
}

/** The listed pet's answer, or the unused id's when nothing is listed: every answer of getPet carries the headers. */
const someGetPetAnswer = (side: Side): Promise<Exchange> =>
  listedPet(side).catch((error: unknown) => {
    if (error instanceof Skip) return unusedPet(side)
    throw error
  })

async function deprecation(side: Side): Promise<Observation> {
  const answer = await someGetPetAnswer(side)
  const { deprecation: deprecated, sunset, link } = answer.headers
  const early = sunset !== undefined && Date.parse(sunset) !== Date.parse(SUNSET) ? " (not the spec's 5 December 2030)" : ''
  return {
    summary: `Deprecation: ${deprecated ?? 'none'}; Sunset: ${sunset ?? 'none'}${early}; Link: ${underBase(link, side.basePath)}`,
    facts: { deprecation: deprecated },
  }
}

async function createOk(side: Side, context: RunContext): Promise<Observation> {
  const answer = await createdPet(side, context)
  if (answer.status !== 201) return { summary: brief(answer), pass: false }
  const problem = petProblem(answer.json)
  if (problem !== undefined) return { summary: `201, but the body is not a Pet (${problem})`, pass: false }
  const pet = answer.json as { id: bigint; name: string; categoryId: bigint; status?: string }
  const echoed = pet.name === context.marker && String(pet.categoryId) === '1' && pet.status === 'pending'
  const read = await side.send({ path: `/pets/${pet.id}`, auth: 'key' })
  const same = read.status === 200 && String((read.json as { id?: unknown } | undefined)?.id) === String(pet.id)
  return {
    summary: `201, a Pet with an assigned id${echoed ? '' : ', its fields not as sent'}; read back: ${same ? '200, the same Pet' : brief(read)}`,
    pass: echoed && same,
  }
}

async function location(side: Side, context: RunContext): Promise<Observation> {
  const answer = await createdPet(side, context)
  if (answer.status !== 201) throw new Skip(`the ${side.name} created no pet (${brief(answer)})`)
  const id = String((answer.json as { id?: unknown } | undefined)?.id)
  const value = answer.headers.location
  return { summary: `Location: ${underBase(value, side.basePath).replace(new RegExp(`/${id}$`), '/{id}')}` }
}

async function invalidBodies(side: Side, context: RunContext): Promise<Observation> {
  const missing = await postPet(side, { name: context.marker })
  const invalid = await postPet(side, { name: context.marker, categoryId: 'one' })
  const pass = [missing, invalid].every((answer) => answer.status === 400 && brief(answer) === '400 Error')
  return { summary: `no categoryId: ${brief(missing)}; categoryId "one": ${brief(invalid)}`, pass }
}

async function noContentType(side: Side, context: RunContext): Promise<Observation> {
  const body = new TextEncoder().encode(JSON.stringify({ name: context.marker, categoryId: 1 }))
  const answer = await side.send({ method: 'POST', path: '/pets', auth: 'key', body })
  return { summary: answer.status === 201 ? '201, stored' : brief(answer) }
}

/** A JSON body in another charset, and one compressed with gzip: the two other media-type refusals of row 17. */
async function charsetAndEncoding(side: Side, context: RunContext): Promise<Observation> {
  const pet = { name: context.marker, categoryId: 1 }
  const json = JSON.stringify(pet)
  const latin1 = { contentType: 'application/json; charset=iso-8859-1', body: new TextEncoder().encode(json) }
  const charset = await postPet(side, pet, latin1)
  const gzip = await postPet(side, pet, { contentEncoding: 'gzip', body: new Uint8Array(gzipSync(json)) })
  const read = (answer: Exchange) => (answer.status === 201 ? '201, stored' : brief(answer))
  return { summary: `charset=iso-8859-1: ${read(charset)}; Content-Encoding gzip: ${read(gzip)}` }
}

const MEDIA_TYPE_OPTIONS = [optionPatch({ mediaTypeErrorStatus: 415 }), optionPatch({ mediaTypeErrorStatus: 400 })]

async function defaultStatus(side: Side, context: RunContext): Promise<Observation> {
  const answer = await postPet(side, { name: context.marker, categoryId: 1 })
  if (answer.status !== 201) return { summary: brief(answer) }
  const status = (answer.json as { status?: unknown } | undefined)?.status
  return { summary: status === undefined ? '201, no status' : `201, status ${JSON.stringify(status)}`, facts: { status } }
}

export const PET_CHECKS: readonly Check[] = [
  {
    id: 'get.ok',
    kind: 'spec',
    title: 'GET /pets/{petId} of a listed pet answers 200 with it',
    spec: 'GET /pets/{petId}: 200 with the Pet ("Endpoints", getPet)',
    cost: 1,
    run: getOk,
  },
  {
    id: 'get.not-found',
    kind: 'spec',
    title: 'GET /pets/{petId} of an id no pet has answers 404',
    spec: 'GET /pets/{petId}: 404 with an Error when the resource cannot be found ("Endpoints", getPet)',
    cost: 1,
    run: async (side) => {
      const answer = await unusedPet(side)
      return { summary: brief(answer), pass: brief(answer) === '404 Error' }
    },
  },
  {
    id: 'get.deprecation-headers',
    kind: 'decision',
    title: 'getPet announces its deprecation',
    spec: 'Deprecated, removed on 5 December 2030 ("Versioning" 3). The headers are the mock\'s decision (row 15): Deprecation (RFC 9745), Sunset (RFC 8594), Link rel="successor-version"',
    cost: 0,
    run: deprecation,
    candidates: (target) => {
      const match = /^@(\d+)$/.exec(String(target.facts?.deprecation ?? '').trim())
      if (!match) return []
      const at = new Date(Number(match[1]) * 1000).toISOString().replace('.000Z', 'Z')
      return [optionPatch({ deprecatedAt: at })]
    },
  },
  {
    id: 'get.non-integer-id',
    kind: 'decision',
    title: 'A petId that is not an int64 (abc, 2^63)',
    spec: 'petId is an int64; any other value: not shown. Decision row 16: 404 (the resource cannot be found)',
    cost: 2,
    run: async (side) => {
      const word = await side.send({ path: '/pets/abc', auth: 'key' })
      const huge = await side.send({ path: '/pets/9223372036854775808', auth: 'key' })
      return { summary: `abc: ${brief(word)}; 9223372036854775808: ${brief(huge)}` }
    },
  },
  {
    id: 'create.ok',
    kind: 'spec',
    title: 'POST /pets adds a pet: 201 with the Pet, then GET finds it',
    spec: 'POST /pets: 201 with the Pet, `id` assigned by the service ("Endpoints", createPet)',
    needs: 'writes',
    cost: 2,
    run: createOk,
  },
  {
    id: 'create.location',
    kind: 'decision',
    title: 'The Location of a created pet',
    spec: "Not shown. Decision row 20: the new pet's path, a relative reference (Location: /v1/pets/51)",
    needs: 'writes',
    cost: 0,
    run: location,
  },
  {
    id: 'create.invalid',
    kind: 'spec',
    title: 'A body missing a field or with an invalid value answers 400',
    spec: 'POST /pets: 400 with an Error for a body missing required fields or containing invalid values',
    needs: 'writes',
    cost: 2,
    run: invalidBodies,
  },
  {
    id: 'create.missing-content-type',
    kind: 'decision',
    title: 'A JSON body sent without Content-Type',
    spec: '"All request and response bodies are application/json"; another media type: not shown. Decision row 17: 400',
    needs: 'writes',
    cost: 1,
    run: noContentType,
    candidates: () => MEDIA_TYPE_OPTIONS,
  },
  {
    id: 'create.charset-encoding',
    kind: 'decision',
    title: 'A JSON body in charset iso-8859-1, and one with Content-Encoding gzip',
    spec: '"All request and response bodies are application/json"; another charset or a compressed body: not shown. Decision row 17: 400',
    needs: 'writes',
    cost: 2,
    run: charsetAndEncoding,
    candidates: () => MEDIA_TYPE_OPTIONS,
  },
  {
    id: 'create.default-status',
    kind: 'decision',
    title: 'A pet created without status',
    spec: 'Default value of status at creation: not shown ("status may be present"). Decision row 2: none',
    needs: 'writes',
    cost: 1,
    run: defaultStatus,
    candidates: (target) => {
      const status = target.facts?.status
      if (status === undefined) return [optionPatch({ defaultStatus: undefined }, ' (leave it out)')]
      return (PET_STATUSES as readonly unknown[]).includes(status) ? [optionPatch({ defaultStatus: status })] : []
    },
  },
]
