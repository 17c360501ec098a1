/**
 * Issue #18: what one created pet leaves in memory. What it leaves on the heap is what every young-generation
 * collection under POST load copies (the create tail); the store keeps pets' texts in array buffers, which count too.
 * In-process, through the standalone server's world (index-only pets, the journal on): heap and array buffers
 * retained per pet after 200,000 creates, against the same-work bare server's representation measured in the
 * same run (a plain object in a Map and an array, from `JSON.parse` of the same bodies); and per pet created from a
 * 0.9 MiB body, which must not keep the body alive (the name used to be a slice of it). Then the time of a full
 * collection while a world of a million seeded pets is held: what the create tail's rounds that hold one pay.
 *
 *   npm run bench -- --only=pet-bytes                        (about 40 seconds)
 *   npm run bench -- --only=pet-bytes --baseline=/tmp/before  (adds another checkout's build, e.g. before a change)
 */

import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createPetStoreServer } from '../src/http.js'
import { median, quick, table, verdict } from './lib.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** `--baseline=DIR`: another checkout's build (`DIR/dist/src/http.js`), measured the same way. */
const BASELINE = process.argv.find((arg) => arg.startsWith('--baseline='))?.slice(11)
export type CreateServer = typeof createPetStoreServer

const COUNT = quick ? 50_000 : 200_000
/** Enough that the journal's chunks coming and going (a few MiB either way) are little per pet. */
const LARGE = 1_000
/** Creates from 0.9 MiB bodies before the large ones are measured: enough to fill the journal (1,000 entries). */
const LARGE_WARM = 1_100
/** A NewPet; with `pad`, a name long enough to be cut as a view (13 characters or more) and a long unknown field. */
const body = (i: number, pad = ''): string =>
  pad === ''
    ? `{"name":"Rex the ${i % 1000}th","categoryId":${1 + (i % 10)},"status":"available"}`
    : `{"name":"A pet with a longer name ${i}","categoryId":2,"notes":"${pad}${i}"}`

/** The heap's used bytes and the array buffers' (the store packs pets' texts into those) together. */
function usedBytes(): number {
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return heapUsed + arrayBuffers
}

/** Heap bytes retained per call of `create`, over `count` calls after `warm` ones. */
function retainedPer(count: number, make: () => (i: number) => void, warm = 5_000): number {
  // Made here and dropped here: a store the caller's frame still held would be freed during the next measurement.
  const create = make()
  // Held through the last collection below: a store only a dead variable referred to may be collected before it.
  const held = [create]
  for (let i = 0; i < warm; i++) create(-1 - i)
  gc()
  gc()
  const before = usedBytes()
  for (let i = 0; i < count; i++) create(i)
  gc()
  gc()
  const retained = (usedBytes() - before) / count
  held.pop()
  return retained
}

export function mockCreates(pad = '', create: CreateServer = createPetStoreServer): (i: number) => void {
  const server = create({
    log: 'silent',
    keys: [{ key: 'k', plan: 'enterprise', limits: { perMinute: 1e12, perDay: 1e15 } }],
  })
  const world = server.sessions.main
  const headers = { authorization: 'Bearer k', 'content-type': 'application/json' }
  return (i) => {
    const response = world.handle({ method: 'POST', path: '/v1/pets', query: '', headers, body: body(i, pad) })
    if (response instanceof Promise || response.status !== 201) throw new Error('[bench] a create was not answered 201 at once')
    world.markDelivered(response)
  }
}

const SEEDED = 100_000

/** Heap bytes per pet of a server world seeded with `SEEDED` pets (the world and its first answer included). */
function seededPer(create: CreateServer = createPetStoreServer): number {
  gc()
  gc()
  const before = usedBytes()
  const server = create({ log: 'silent', pets: SEEDED })
  const response = server.sessions.main.handle({
    method: 'GET',
    path: '/v1/pets',
    query: 'limit=1',
    headers: { authorization: 'Bearer test-pro' },
    body: undefined,
  })
  if (response instanceof Promise || response.status !== 200) throw new Error('[bench] the seeded world did not answer 200 at once')
  gc()
  gc()
  return (usedBytes() - before) / SEEDED
}

const HELD = 1_000_000

/** The median ms of three full collections (`gc()`), with a world of `HELD` seeded pets held, or nothing (`create` omitted). */
function collectionMs(create?: CreateServer): number {
  const server = create?.({ log: 'silent', pets: HELD })
  const times: number[] = []
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    gc()
    times.push(performance.now() - started)
  }
  // Held through the collections above: a world only a dead variable referred to may be collected before them.
  if (server !== undefined && server.sessions.main === undefined) throw new Error('[bench] the world is gone')
  return median(times)
}

function bareCreates(): (i: number) => void {
  const pets: unknown[] = []
  const byId = new Map<number, unknown>()
  let nextId = 1
  return (i) => {
    const input = JSON.parse(body(i)) as { name: string; categoryId: number; status?: string }
    const pet = { id: nextId++, name: input.name, categoryId: input.categoryId, ...(input.status ? { status: input.status } : {}) }
    pets.push(pet)
    byId.set(pet.id, pet)
    JSON.stringify(pet)
  }
}

export async function benchPetBytes(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(
    `\n# Memory retained per created pet, heap and array buffers (in-process, ${COUNT.toLocaleString('en-US')} creates, after gc)`,
  )
  const mock = retainedPer(COUNT, () => mockCreates())
  const pad = 'x'.repeat(900 * 1024)
  const large = retainedPer(LARGE, () => mockCreates(pad), LARGE_WARM)
  const seeded = seededPer()
  const collections: (string | number)[][] = [
    ['nothing held (the bench process itself)', collectionMs()],
    ['this build', collectionMs(createPetStoreServer)],
  ]
  const there: [string, number][] = []
  if (BASELINE) {
    const other = (await import(pathToFileURL(join(BASELINE, 'dist/src/http.js')).href)) as { createPetStoreServer: CreateServer }
    there.push([`${BASELINE} build`, retainedPer(COUNT, () => mockCreates('', other.createPetStoreServer))])
    const largeThere = retainedPer(LARGE, () => mockCreates(pad, other.createPetStoreServer), LARGE_WARM)
    there.push([`${BASELINE} build, each pet from a 0.9 MiB body`, largeThere])
    there.push([`${BASELINE} build, ${SEEDED.toLocaleString('en-US')} seeded pets (each)`, seededPer(other.createPetStoreServer)])
    collections.push([`${BASELINE} build`, collectionMs(other.createPetStoreServer)])
  }
  // Last: measured first, the bare store was still being freed while the next one was measured (-101 bytes a pet).
  const bare = retainedPer(COUNT, () => bareCreates())
  const baseline = there.map(([what, bytes]) => [what, bytes, (bytes / bare).toFixed(2), ''])
  // The bare server keeps numbers where the mock keeps exact int64 bigints, and no JSON text: 4x is the bound.
  const ok = mock <= 4 * bare && large < 64 * 1024 && seeded <= 4 * bare
  return {
    lines: [
      table('Memory per created pet (heap and array buffers)', [
        ['what', 'bytes per pet', 'x bare', 'target'],
        ['bare, same work (a plain object in a Map and an array)', bare, '1.00', ''],
        [
          'petstore-mock (int64 bigints, JSON text kept, journal on)',
          mock,
          (mock / bare).toFixed(2),
          `<= 4x bare: ${verdict(mock <= 4 * bare)}`,
        ],
        ['petstore-mock, each pet from a 0.9 MiB body', large, (large / bare).toFixed(2), `< 64 KiB: ${verdict(large < 64 * 1024)}`],
        [
          `petstore-mock, ${SEEDED.toLocaleString('en-US')} seeded pets (each)`,
          seeded,
          (seeded / bare).toFixed(2),
          `<= 4x bare: ${verdict(seeded <= 4 * bare)}`,
        ],
        ...baseline,
      ]),
      // What a full collection marks of the stored pets: the create tail's rounds that hold one (issue #18).
      table(`A full collection with a world of ${HELD.toLocaleString('en-US')} seeded pets held (median of 3 gc())`, [
        ['what', 'ms'],
        ...collections,
      ]),
    ],
    ok,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPetBytes()
