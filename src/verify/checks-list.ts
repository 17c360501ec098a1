/**
 * `GET /pets`: the spec's page size and status filter, and the decisions about a `limit` or `status` the spec
 * leaves open and the order of the pets (docs/spec-decisions.md rows 6, 7).
 */
import { PAGE_SIZE, PET_STATUSES } from '../spec.js'
import { optionPatch } from './config.js'
import { brief, listSummary, petsOf, petsProblem } from './describe.js'
import { firstPage, largestPage, petCount, probe } from './requests.js'
import { type Check, type Observation, type Side, Skip } from './types.js'

const QUERY_OPTIONS = [optionPatch({ queryValidation: 'lenient' }), optionPatch({ queryValidation: 'strict' })]

const plural = (n: number) => `${n} pet${n === 1 ? '' : 's'}`

async function listOk(side: Side): Promise<Observation> {
  const page = await firstPage(side)
  const pets = page.status === 200 ? petsOf(page) : undefined
  if (!pets) return { summary: brief(page), pass: false }
  const problem = petsProblem(pets)
  const json = /^application\/json\b/i.test(page.headers['content-type'] ?? '')
  if (problem !== undefined) return { summary: `200, but ${problem}`, pass: false }
  return { summary: `200, Pets (${plural(pets.length)})${json ? '' : ', not application/json'}`, pass: json }
}

async function defaultLimit(side: Side): Promise<Observation> {
  const page = petsOf(await firstPage(side))
  const all = petsOf(await largestPage(side))
  if (!page || !all) return { summary: `no list to count (${brief(await firstPage(side))})`, pass: false }
  const expected = Math.min(PAGE_SIZE.default, all.length)
  return {
    summary: `${plural(page.length)} without limit, ${plural(all.length)} with limit=${PAGE_SIZE.max}`,
    pass: page.length === expected,
  }
}

async function limitBounds(side: Side): Promise<Observation> {
  const one = await probe(side)
  const all = await largestPage(side)
  const [onePets, allPets] = [petsOf(one), petsOf(all)]
  if (one.status !== 200 || all.status !== 200 || !onePets || !allPets)
    return { summary: `limit=1: ${brief(one)}; limit=100: ${brief(all)}`, pass: false }
  return {
    summary: `limit=1: ${plural(onePets.length)}; limit=100: ${plural(allPets.length)}`,
    pass: onePets.length === Math.min(1, allPets.length) && allPets.length <= PAGE_SIZE.max,
  }
}

async function statusFilter(side: Side): Promise<Observation> {
  const parts: string[] = []
  let pass = true
  for (const status of PET_STATUSES) {
    const page = await side.send({ path: `/pets?status=${status}&limit=${PAGE_SIZE.max}`, auth: 'key' })
    const pets = page.status === 200 ? petsOf(page) : undefined
    if (!pets) {
      pass = false
      parts.push(`${status}: ${brief(page)}`)
      continue
    }
    const others = pets.filter((pet) => (pet as { status?: unknown } | null)?.status !== status).length
    if (others > 0) pass = false
    parts.push(`${status}: ${plural(pets.length)}${others > 0 ? `, ${others} of another status` : ''}`)
  }
  return { summary: parts.join('; '), pass }
}

/** The order of the largest page, by id (never the ids themselves: they are the side's data). */
async function order(side: Side): Promise<Observation> {
  const ids = (petsOf(await largestPage(side)) ?? [])
    .map((pet) => (pet as { id?: unknown } | null)?.id)
    .filter((id): id is bigint | number => typeof id === 'bigint' || (typeof id === 'number' && Number.isInteger(id)))
    .map((id) => BigInt(id))
  if (ids.length < 2) throw new Skip(`the ${side.name} lists fewer than 2 pets with an id: no order to see`)
  const pairs = ids.slice(1).map((id, i) => [ids[i] as bigint, id] as const)
  if (pairs.every(([a, b]) => a < b)) return { summary: 'ascending id' }
  if (pairs.every(([a, b]) => a > b)) return { summary: 'descending id' }
  return { summary: 'in no order of id' }
}

/** Sends `GET /pets?<query>` and reads the answer against the side's own pets. */
async function listWith(side: Side, query: string, readings: readonly (readonly [string, number])[]): Promise<string> {
  const total = await petCount(side)
  return `${query}: ${listSummary(await side.send({ path: `/pets?${query}`, auth: 'key' }), total, readings)}`
}

export const LIST_CHECKS: readonly Check[] = [
  {
    id: 'list.ok',
    kind: 'spec',
    title: 'GET /pets answers 200 with Pets',
    spec: 'GET /pets: 200 with Pets, an array of Pet (id, name, categoryId; status may be present), application/json ("Endpoints")',
    cost: 1,
    run: listOk,
  },
  {
    id: 'list.default-limit',
    kind: 'spec',
    title: 'Without limit, a page holds 20 pets',
    spec: '`limit` default 20 ("Limits", Page size)',
    cost: 1,
    run: defaultLimit,
  },
  {
    id: 'list.limit-bounds',
    kind: 'spec',
    title: 'limit=1 and limit=100 are honoured',
    spec: '`limit` minimum 1, maximum 100 ("Limits", Page size)',
    cost: 0,
    run: limitBounds,
  },
  {
    id: 'list.status-filter',
    kind: 'spec',
    title: 'The status filter returns only pets with that status',
    spec: '`status` (available, pending, sold): "Return only animals with this status" (GET /pets)',
    cost: PET_STATUSES.length,
    run: statusFilter,
  },
  {
    id: 'list.order',
    kind: 'decision',
    title: 'The order of the pets in GET /pets',
    spec: 'Order and page navigation: not shown. Decision row 6: the first `limit` pets in ascending id order',
    cost: 0,
    run: order,
  },
  {
    id: 'query.limit-out-of-range',
    kind: 'decision',
    title: 'A limit outside 1..100 (0, 500)',
    spec: 'Not shown ("Behaviour for a limit outside 1..100 … not shown"): decision row 7',
    cost: 2,
    run: async (side) => ({
      summary: [
        await listWith(side, 'limit=0', [
          ['1 pet (clamped to 1)', 1],
          ['the default 20', 20],
        ]),
        await listWith(side, 'limit=500', [
          ['up to 100 (clamped)', 100],
          ['the default 20', 20],
        ]),
      ].join('; '),
    }),
    candidates: () => QUERY_OPTIONS,
  },
  {
    id: 'query.limit-not-integer',
    kind: 'decision',
    title: 'A limit that is not an integer (abc, 1.5)',
    spec: '`limit` is an integer; any other value: not shown. Decision row 7',
    cost: 2,
    run: async (side) => ({
      summary: [
        await listWith(side, 'limit=abc', [['the default 20', 20]]),
        await listWith(side, 'limit=1.5', [
          ['the default 20', 20],
          ['1 pet (1.5 read as 1)', 1],
        ]),
      ].join('; '),
    }),
    candidates: () => QUERY_OPTIONS,
  },
  {
    id: 'query.status-unknown',
    kind: 'decision',
    title: 'An unknown status value',
    spec: 'Not shown ("… or an unknown status value: not shown"): decision row 7',
    cost: 1,
    run: async (side) => ({
      summary: await listWith(side, 'status=petstore-mock-verify', [
        ['the default 20 (filter ignored)', 20],
        ['up to 100 (filter ignored)', 100],
      ]),
    }),
    candidates: () => QUERY_OPTIONS,
  },
]
