/**
 * What the mock keeps in memory in-process, heap and array buffers after full collections (issues #13 and #18): the
 * budgets the regression tests under test/regressions/ once asserted, each beside the same work done on plain JS values
 * in the same run. The tests keep the behaviour (the pets read back, the bodies cut); these figures are this machine's
 * heap, so they live here.
 *
 *   npm run bench -- --only=memory          (this table and the servers' RSS; about a minute)
 */
import { createPetStore } from '../src/index.js'
import { createJournalBudget } from '../src/journal/budget.js'
import { createJournal } from '../src/journal/journal.js'
import { heapGrowthOf } from './heap.js'
import { quick, table, verdict } from './lib.js'

/** Created pets measured; the journal (1,000 entries) is filled before, so from then on it holds the same bytes. */
const CREATED = quick ? 20_000 : 100_000
const SEEDED = 50_000
const LARGE_PETS = 150
const JOURNAL_ENTRIES = 300
/** The size of a large body: under the default 1 MiB limit of a request body. */
const LARGE = 900 * 1024
const MB = 1024 * 1024

interface PlainPet {
  id: number
  name: string
  categoryId: number
  status: string | undefined
}

const KEY = { key: 'k', plan: 'enterprise' as const, limits: { perMinute: 1e9, perDay: 1e9 } }
const newPet = (i: number): string => `{"name":"Rex the ${i % 1000}th","categoryId":${1 + (i % 10)},"status":"available"}`
/** A NewPet with a name long enough to be cut as a view (13 characters or more) and a long unknown field. */
const largeNewPet = (i: number, pad: string): string => `{"name":"A pet with a longer name ${i}","categoryId":2,"notes":"${pad}${i}"}`
/** A flat string of its own, as a body read from the network is (a template keeps the pieces it joins). */
const flat = (text: string): string => Buffer.from(text, 'latin1').toString('latin1')

/** `POST /v1/pets` of `body` through `petStore.fetch`, which must answer 201. */
async function create(petStore: ReturnType<typeof createPetStore>, body: string): Promise<void> {
  const response = await petStore.fetch('/v1/pets', {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body,
  })
  if (response.status !== 201) throw new Error(`[bench] a create answered ${response.status}: ${await response.text()}`)
  await response.arrayBuffer()
}

/** Bytes kept per created pet, in a world as the standalone server keeps its sessions' (no @msw/data copy). */
async function createdPets(): Promise<number> {
  const petStore = createPetStore({ seed: 1, pets: 0, collection: false, keys: [KEY] })
  for (let i = 0; i < 2_000; i++) await create(petStore, newPet(-1 - i))
  const { bytes } = await heapGrowthOf(async () => {
    for (let i = 0; i < CREATED; i++) await create(petStore, newPet(i))
    return petStore
  })
  return bytes / CREATED
}

/** The same creates on plain objects: parsed, given an id, kept in a Map by id. */
async function plainCreatedPets(): Promise<number> {
  let nextId = 1
  const { bytes } = await heapGrowthOf(() => {
    const byId = new Map<number, PlainPet>()
    for (let i = 0; i < CREATED; i++) {
      const input = JSON.parse(newPet(i)) as Omit<PlainPet, 'id'>
      const pet = { id: nextId++, name: input.name, categoryId: input.categoryId, status: input.status }
      byId.set(pet.id, pet)
    }
    return byId
  })
  return bytes / CREATED
}

/** Bytes kept per seeded pet: the world, its pets and its first answer. */
async function seededPets(): Promise<number> {
  const { bytes } = await heapGrowthOf(async () => {
    const petStore = createPetStore({ seed: 1, pets: SEEDED, collection: false })
    const response = await petStore.fetch('/v1/pets?limit=1', { headers: { authorization: 'Bearer test-pro' } })
    if (response.status !== 200) throw new Error(`[bench] the seeded world answered ${response.status}`)
    return petStore
  })
  return bytes / SEEDED
}

/** The same pets as plain objects in a Map by id, parsed from their JSON (read before the measure). */
async function plainSeededPets(): Promise<number> {
  const records = createPetStore({ seed: 1, pets: SEEDED, collection: false }).snapshot().pets
  const text = JSON.stringify(
    records.map((pet) => ({ id: Number(pet.id), name: pet.name, categoryId: Number(pet.categoryId), status: pet.status })),
  )
  const { bytes } = await heapGrowthOf(() => {
    const byId = new Map<number, PlainPet>()
    for (const pet of JSON.parse(text) as PlainPet[]) byId.set(pet.id, pet)
    return byId
  })
  return bytes / SEEDED
}

/** MB kept by pets created from distinct 0.9 MiB bodies (the name used to be a view of the whole body). */
async function petsFromLargeBodies(): Promise<number> {
  const petStore = createPetStore({ seed: 1, pets: 0, keys: [KEY] })
  const pad = 'x'.repeat(LARGE)
  const { bytes } = await heapGrowthOf(async () => {
    for (let i = 0; i < LARGE_PETS; i++) await create(petStore, largeNewPet(i, pad))
    return petStore
  })
  return bytes / MB
}

/** MB kept by the same bodies, each kept whole. */
async function largeBodiesKept(count: number, body: (i: number) => string): Promise<number> {
  const { bytes } = await heapGrowthOf(() => Array.from({ length: count }, (_, i) => flat(body(i))))
  return bytes / MB
}

/** A body of 0.9 MiB, distinct for each `i`, as the journal regression recorded. */
const journalBody = (i: number): string => `{"name":"${String(i).padStart(LARGE, 'x')}"}`

/** MB kept by journal entries of distinct 0.9 MiB bodies (each keeps a 16 KiB prefix, which used to be a view). */
async function journalOfLargeBodies(): Promise<number> {
  const journal = createJournal({ limit: 1_000, now: () => 0, budget: createJournalBudget(1024 * MB) })
  const { bytes } = await heapGrowthOf(() => {
    for (let i = 0; i < JOURNAL_ENTRIES; i++) {
      const body = journalBody(i)
      journal.record(
        { method: 'POST', path: '/v1/pets', query: '', headers: {}, body },
        { status: 400, headers: {}, body: '{"code":"invalid_body","message":"","status":400}' },
        { arrival: i + 1 },
      )
    }
    return journal
  })
  if (journal.all().length !== JOURNAL_ENTRIES) throw new Error('[bench] the journal did not keep every entry')
  return bytes / MB
}

/** One row: what, unit, the mock's figure, the baseline's, their ratio, and the target met or not. */
function row(what: string, unit: string, mock: number, baseline: number, target: number): { cells: (string | number)[]; ok: boolean } {
  const ok = mock < target
  return { cells: [what, unit, mock, baseline, (mock / baseline).toFixed(2), `< ${target} ${unit}: ${verdict(ok)}`], ok }
}

export async function benchMemoryInProcess(): Promise<{ lines: string[]; ok: boolean }> {
  console.log('\n# Memory kept in-process (heap and array buffers after full collections; what test/regressions/ guards)')
  const pad = 'x'.repeat(LARGE)
  const rows = [
    row(
      `a created pet (${CREATED.toLocaleString('en-US')} creates; baseline: the parsed pet in a Map)`,
      'B',
      await createdPets(),
      await plainCreatedPets(),
      // Per pet, what keeps 100,000 pets under the server's 150 MB RSS target with room (decisions/023).
      300,
    ),
    row(
      `a seeded pet (${SEEDED.toLocaleString('en-US')}; baseline: the same pets parsed into a Map)`,
      'B',
      await seededPets(),
      await plainSeededPets(),
      300,
    ),
    row(
      `${LARGE_PETS} pets created from distinct 0.9 MiB bodies (baseline: the bodies kept)`,
      'MB',
      await petsFromLargeBodies(),
      await largeBodiesKept(LARGE_PETS, (i) => largeNewPet(i, pad)),
      40,
    ),
    row(
      `${JOURNAL_ENTRIES} journal entries of distinct 0.9 MiB bodies (baseline: the bodies kept)`,
      'MB',
      await journalOfLargeBodies(),
      await largeBodiesKept(JOURNAL_ENTRIES, journalBody),
      100,
    ),
  ]
  return {
    lines: [
      table('Memory kept in-process', [
        ['what', 'unit', 'petstore-mock', 'baseline', 'x baseline', 'target'],
        ...rows.map(({ cells }) => cells),
      ]),
    ],
    ok: rows.every(({ ok }) => ok),
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchMemoryInProcess()
