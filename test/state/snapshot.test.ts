import { describe, expect, it } from 'vitest'
import { parseJson } from '../../src/core/json.js'
import { INT64_MAX } from '../../src/schemas.js'
import { parseSnapshot, StaleSnapshotError, snapshotPieces, stringifySnapshot, type WorldSnapshot } from '../../src/snapshot.js'
import { createCollectionData } from '../../src/store/collection-data.js'
import { createWorld } from '../../src/world/create-world.js'

const state = (count: number): WorldSnapshot => ({
  version: 1,
  pets: Array.from({ length: count }, (_, i) => ({
    id: BigInt(i + 1),
    name: i % 3 === 0 ? `Rex "${i}" 🐕 犬\n` : `Pet ${i}`,
    categoryId: i === 0 ? INT64_MAX : BigInt(i % 7),
    ...(i % 2 === 0 ? { status: 'sold' as const } : {}),
  })),
  nextId: BigInt(count + 1),
  rateLimits: { 'test-free': { minuteStart: 1, minuteCount: 2, dayStart: 3, dayCount: 4, retryAt: 0, earlyRetries: 0, bannedUntil: 0 } },
  clock: { frozenAt: 1_790_000_000_000, offset: -5 },
  scenario: 'sold-out',
})

describe('the snapshot written in pieces', () => {
  for (const count of [0, 1, 999, 1_000, 1_001, 5_000]) {
    it(`reads back as the same state as the snapshot written whole, with ${count} pets`, () => {
      const pieces = [...snapshotPieces(state(count))]
      const whole = parseJson(stringifySnapshot(state(count)))
      const inPieces = parseJson(pieces.join(''))
      expect(inPieces).toEqual(whole)
      const parsed = parseSnapshot(pieces.join(''))
      expect(parsed.ok && parsed.snapshot.pets).toHaveLength(count)
      // A thousand pets a piece, so a writer can let requests through between them.
      expect(pieces.length).toBe(Math.ceil(count / 1_000) + 1)
    })
  }

  /** The snapshot of a seeded world with three pets created over the API: quotes, non-ASCII, a long name. */
  async function snapshotOfAWorld() {
    const world = createWorld({ seed: 3, pets: 2_500 })
    const key = { Authorization: 'Bearer test-enterprise' }
    for (const name of ['Rex "the dog"', '犬 🐕', 'x'.repeat(300)]) {
      const created = await world.fetch('/v1/pets', {
        method: 'POST',
        headers: { ...key, 'Content-Type': 'application/json' },
        body: `{"name":${JSON.stringify(name)},"categoryId":9223372036854775807,"status":"pending"}`,
      })
      expect(created.status).toBe(201)
    }
    return world.snapshot()
  }

  it("takes each pet's text from the world's storage when written in steps, with or without a collection", async () => {
    for (const world of [createWorld({ seed: 3, pets: 20 }), createWorld({ seed: 3, pets: 20 }, createCollectionData())]) {
      await world.ready()
      const { pets } = world.snapshotInSteps()
      expect(pets.length).toBe(20)
      const listed = await world.fetch('/v1/pets?limit=20', { headers: { Authorization: 'Bearer test-enterprise' } })
      expect(`[${Array.from({ length: pets.length }, (_, i) => pets.textOf(i)).join(',')}]`).toBe(await listed.text())
    }
  })

  it("holds the world's pets as plain records", async () => {
    const { pets } = await snapshotOfAWorld()
    expect(Reflect.ownKeys(pets)).toEqual(Reflect.ownKeys([...pets]))
  })

  it("reads back as the snapshot written whole from a world's storage", async () => {
    const snapshot = await snapshotOfAWorld()
    const inPieces = [...snapshotPieces(snapshot)].join('')
    expect(parseJson(inPieces)).toEqual(parseJson(stringifySnapshot(snapshot)))
    expect(inPieces).toContain('"categoryId":9223372036854775807')
  })

  describe('read from the storage as it is written (snapshotInSteps)', () => {
    const key = { authorization: 'Bearer test-enterprise', 'content-type': 'application/json' }
    const create = (world: ReturnType<typeof createWorld>, name: string) =>
      world.handle({ method: 'POST', path: '/v1/pets', query: '', headers: key, body: `{"name":${JSON.stringify(name)},"categoryId":4}` })

    it('writes the pets as they were when it was taken, not the creates after it', () => {
      const world = createWorld({ seed: 5, pets: 2_345 })
      create(world, 'Before 🐕')
      const expected = parseJson(stringifySnapshot(world.snapshot()))
      const stepped = world.snapshotInSteps()
      const pieces: string[] = []
      for (const piece of snapshotPieces(stepped)) {
        pieces.push(piece)
        // Creates between the pieces, as requests answered while the file is written.
        create(world, `After ${pieces.length}`)
      }
      expect(parseJson(pieces.join(''))).toEqual(expected)
      expect(world.snapshot().pets).toHaveLength(2_346 + pieces.length)
    })

    it('stops with StaleSnapshotError once a pet is replaced, or all are, while it is written', async () => {
      for (const change of ['restore', 'reset'] as const) {
        const world = createWorld({ seed: 5, pets: 2_345 })
        const pieces = snapshotPieces(world.snapshotInSteps())
        pieces.next()
        if (change === 'restore') await world.restore({ ...world.snapshot(), pets: world.snapshot().pets.slice(1) })
        else await world.reset()
        expect(() => pieces.next(), change).toThrow(StaleSnapshotError)
      }
    })
  })
})
