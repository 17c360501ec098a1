import { describe, expect, it } from 'vitest'
import type { PetRecord } from '../schemas.js'
import { createPetIndex, type PetIndex } from './pet-index.js'

const pet = (id: number, status?: PetRecord['status'], name = `Pet ${id}`): PetRecord =>
  status === undefined ? { id: BigInt(id), name, categoryId: 1n } : { id: BigInt(id), name, categoryId: 1n, status }

describe('pages of the pet index', () => {
  it('answers a page with its JSON body, the pets in id order', () => {
    const index = createPetIndex()
    for (const id of [3, 1, 2]) index.put(pet(id, 'available'))
    const page = index.list(undefined, 2)
    expect(page.entries.map((entry) => entry.pet.id)).toEqual([1n, 2n])
    expect(JSON.parse(page.json ?? '')).toEqual([
      { id: 1, name: 'Pet 1', categoryId: 1, status: 'available' },
      { id: 2, name: 'Pet 2', categoryId: 1, status: 'available' },
    ])
  })

  it('keeps a page until the next write, then answers what was written', () => {
    const index = createPetIndex()
    index.put(pet(1, 'available'))
    const before = index.list('available', 20)
    expect(index.list('available', 20)).toBe(before)
    index.put(pet(2, 'available'))
    expect(index.list('available', 20).entries.map((entry) => entry.pet.id)).toEqual([1n, 2n])
    index.put(pet(1, 'sold'))
    expect(index.list('available', 20).json).toBe('[{"id":2,"name":"Pet 2","categoryId":1,"status":"available"}]')
    expect(index.list('sold', 20).entries.map((entry) => entry.pet.id)).toEqual([1n])
    index.remove(2n)
    expect(index.list(undefined, 20).entries.map((entry) => entry.pet.id)).toEqual([1n])
    index.clear()
    expect(index.list(undefined, 20).json).toBe('[]')
  })

  it('keeps pages of a bounded size in all: many different pages push the first one out', () => {
    const index = createPetIndex()
    for (let id = 1; id <= 100; id++) index.put(pet(id, 'pending', `${'n'.repeat(200)} ${id}`))
    const first = index.list(undefined, 1)
    expect(index.list(undefined, 1)).toBe(first)
    // 100 pages of up to 100 pets of over 200 characters: far more than the pages may hold together.
    for (let limit = 2; limit <= 100; limit++) index.list('pending', limit)
    const again = index.list(undefined, 1)
    expect(again).not.toBe(first)
    expect(again.json).toBe(first.json)
  })
})

describe('ids of the pet index at the edge of exact numbers', () => {
  // 2^53 and 2^53 + 1 are the same `number`: the index must still tell them apart (ids are int64).
  const edge = [
    9007199254740991n,
    9007199254740992n,
    9007199254740993n,
    -9007199254740993n,
    -9007199254740992n,
    -9007199254740991n,
    9223372036854775807n,
    -9223372036854775808n,
    0n,
  ]
  const named = (id: bigint): PetRecord => ({ id, name: `Pet ${id}`, categoryId: 1n })

  it('finds each id as the pet stored under it, never a neighbour that rounds to the same number', () => {
    const index = createPetIndex()
    for (const id of edge) index.put(named(id))
    expect(index.size).toBe(edge.length)
    for (const id of edge) expect(index.get(id)?.pet.name).toBe(`Pet ${id}`)
    expect(index.get(9007199254740994n)).toBeUndefined()
  })

  /** The edge ids stored, then 2^53 + 1 replaced. */
  function withOneReplaced() {
    const index = createPetIndex()
    for (const id of edge) index.put(named(id))
    index.put({ ...named(9007199254740993n), name: 'Replaced' })
    return index
  }

  it('replaces the pet with exactly that id', () => {
    const index = withOneReplaced()
    expect(index.size).toBe(edge.length)
    expect(index.get(9007199254740993n)?.pet.name).toBe('Replaced')
    expect(index.get(9007199254740992n)?.pet.name).toBe('Pet 9007199254740992')
  })

  it('removes the pet with exactly that id', () => {
    const index = withOneReplaced()
    index.remove(9007199254740992n)
    expect(index.get(9007199254740992n)).toBeUndefined()
    expect(index.get(9007199254740993n)?.pet.name).toBe('Replaced')
    expect(index.get(9007199254740991n)?.pet.name).toBe('Pet 9007199254740991')
    expect(index.size).toBe(edge.length - 1)
  })
})

describe('rewrites of the pet index', () => {
  it('counts every change but a create appended after the highest id', () => {
    const index = createPetIndex()
    for (const id of [1, 2, 3]) index.putNew(pet(id))
    index.put(pet(7))
    expect(index.rewrites).toBe(0)
    index.put(pet(5))
    expect(index.rewrites).toBe(1)
    index.put(pet(2, 'sold'))
    expect(index.rewrites).toBeGreaterThan(1)
    const afterReplace = index.rewrites
    index.remove(9n)
    expect(index.rewrites).toBe(afterReplace)
    index.remove(1n)
    expect(index.rewrites).toBe(afterReplace + 1)
    index.clear()
    expect(index.rewrites).toBe(afterReplace + 2)
  })
})

/** Every entry in id order. */
const allOf = (index: PetIndex) => Array.from({ length: index.size }, (_, position) => index.entryAt(position))

describe('pets stored as their texts', () => {
  /** Pets with ids on both sides of 2^53, stored out of order, and one with a status and non-ASCII name. */
  function storedOnBothSides() {
    const index = createPetIndex()
    const ids = [9_223_372_036_854_775_807n, 1n, 9_007_199_254_740_993n, 9_007_199_254_740_991n, 2n ** 53n, 3n]
    for (const id of ids) index.put({ id, name: `Pet "${id}"`, categoryId: 9_223_372_036_854_775_806n })
    index.put({ id: 4n, name: 'Ünïcode ✓', categoryId: 1n, status: 'sold' })
    const sorted = [...ids, 4n].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    return { index, ids, sorted }
  }

  it('keeps ids on both sides of 2^53 in one order', () => {
    const { index, sorted } = storedOnBothSides()
    expect(allOf(index).map((entry) => entry.pet.id)).toEqual(sorted)
    expect(allOf(index).map((entry) => BigInt(entry.id))).toEqual(sorted)
    expect(index.maxId()).toBe(9_223_372_036_854_775_807n)
  })

  it('finds each record by id, read back exactly', () => {
    const { index, ids } = storedOnBothSides()
    for (const id of ids) {
      expect(index.get(id)?.pet).toEqual({ id, name: `Pet "${id}"`, categoryId: 9_223_372_036_854_775_806n })
      expect(index.get(id)?.json).toBe(`{"id":${id},"name":"Pet \\"${id}\\"","categoryId":9223372036854775806}`)
    }
    expect(index.get(4n)?.pet).toEqual({ id: 4n, name: 'Ünïcode ✓', categoryId: 1n, status: 'sold' })
    expect(index.list('sold', 20).entries.map((entry) => entry.pet.id)).toEqual([4n])
  })

  it('keeps the others in order when ids next to 2^53 are removed', () => {
    const { index, sorted } = storedOnBothSides()
    index.remove(9_007_199_254_740_993n)
    index.remove(2n ** 53n)
    expect(index.get(9_007_199_254_740_993n)).toBeUndefined()
    expect(allOf(index).map((entry) => entry.pet.id)).toEqual(sorted.filter((id) => id !== 9_007_199_254_740_993n && id !== 2n ** 53n))
  })

  it('reads back names holding quotes, backslashes, escapes or commas, with a status or without', () => {
    const index = createPetIndex()
    const names = ['a"b', 'back\\slash\\', '\\"', 'tab\there\nnew', '\u0001\u001f', ',"categoryId":5', '}', '', 'ok']
    names.forEach((name, i) => {
      index.put(
        i % 2 === 0 ? { id: BigInt(i + 1), name, categoryId: -7n } : { id: BigInt(i + 1), name, categoryId: 42n, status: 'pending' },
      )
    })
    expect(allOf(index).map((entry) => entry.pet)).toEqual(
      names.map((name, i) =>
        i % 2 === 0 ? { id: BigInt(i + 1), name, categoryId: -7n } : { id: BigInt(i + 1), name, categoryId: 42n, status: 'pending' },
      ),
    )
  })

  it('reads back as written long, non-ASCII and lone-surrogate names among 5,000 pets', () => {
    const index = createPetIndex()
    const long = 'ü'.repeat(200_000)
    const nameOf = (i: number) => (i === 777 ? long : i % 3 === 0 ? `Rex ${i} 🐕` : i % 3 === 1 ? `lone \ud800 ${i}` : `x`.repeat(i % 50))
    for (let i = 1; i <= 5000; i++) index.putNew({ id: BigInt(i), name: nameOf(i), categoryId: BigInt(i), status: 'available' })
    expect(index.size).toBe(5000)
    for (const i of [1, 2, 3, 776, 777, 778, 4999, 5000]) {
      expect(index.get(BigInt(i))?.pet).toEqual({ id: BigInt(i), name: nameOf(i), categoryId: BigInt(i), status: 'available' })
      expect(index.textAt(i - 1)).toBe(index.get(BigInt(i))?.json)
    }
    expect(index.list('available', 3).entries.map((entry) => entry.pet.name)).toEqual([nameOf(1), nameOf(2), nameOf(3)])
    expect(index.list(undefined, 1000).json).toBe(
      `[${allOf(index)
        .slice(0, 1000)
        .map((entry) => entry.json)
        .join(',')}]`,
    )
  })

  const churnName = (round: number, i: number) => `${round}:${i}:${'n'.repeat(1000)}`
  /** 1,000 pets, each replaced 39 times by a name of about 1 KB. */
  function churned() {
    const index = createPetIndex()
    for (let round = 0; round < 40; round++)
      for (let i = 1; i <= 1000; i++) index.put({ id: BigInt(i), name: churnName(round, i), categoryId: 1n })
    return index
  }

  it('keeps only the last version of each replaced pet', () => {
    const index = churned()
    expect(index.size).toBe(1000)
    expect(allOf(index).map((entry) => entry.pet.name)).toEqual(Array.from({ length: 1000 }, (_, i) => churnName(39, i + 1)))
    expect(index.list(undefined, 1000).json).toBe(
      `[${allOf(index)
        .map((entry) => entry.json)
        .join(',')}]`,
    )
  })

  it('lists the pets left after half of a churned index is removed', () => {
    const index = churned()
    for (let i = 1; i <= 1000; i += 2) index.remove(BigInt(i))
    expect(index.list(undefined, 2).entries.map((entry) => entry.pet.id)).toEqual([2n, 4n])
  })

  it('holds nothing after a churned index is cleared', () => {
    const index = churned()
    for (let i = 1; i <= 1000; i += 2) index.remove(BigInt(i))
    index.clear()
    expect(index.size).toBe(0)
    expect(index.maxId()).toBe(0n)
    expect(index.list(undefined, 20)).toEqual({ entries: [], json: '[]' })
    index.putNew(pet(1))
    expect(allOf(index).map((entry) => entry.pet.id)).toEqual([1n])
  })
})

describe('pets put back out of order (a state log replayed)', () => {
  /** Creates and replaced pets in the order a log may hold them: ids out of order, statuses changed. */
  function replayed() {
    const index = createPetIndex()
    const log: PetRecord[] = [pet(5, 'sold'), pet(2, 'available'), pet(9), pet(1, 'available'), pet(7, 'sold'), pet(2, 'sold'), pet(3)]
    for (const record of log) index.put(record)
    return index
  }

  it('lists every pet and every status in id order, each pet once with its last status', () => {
    const index = replayed()
    expect(index.size).toBe(6)
    expect(allOf(index).map((entry) => entry.id)).toEqual([1, 2, 3, 5, 7, 9])
    expect(index.list(undefined, 20).entries.map((entry) => entry.id)).toEqual([1, 2, 3, 5, 7, 9])
    expect(index.list('sold', 20).entries.map((entry) => entry.id)).toEqual([2, 5, 7])
    expect(index.list('available', 20).entries.map((entry) => entry.id)).toEqual([1])
    expect(index.list('pending', 20)).toEqual({ entries: [], json: '[]' })
    expect(index.list('sold', 2).json).toBe(`[${[2, 5].map((id) => index.get(BigInt(id))?.json).join(',')}]`)
    expect(index.get(2n)?.pet).toEqual(pet(2, 'sold'))
    expect(index.maxId()).toBe(9n)
  })

  it('appends the creates after the highest id replayed', () => {
    const index = replayed()
    const rewrites = index.rewrites
    index.putNew(pet(10, 'sold'))
    expect(index.rewrites).toBe(rewrites)
    expect(index.list('sold', 20).entries.map((entry) => entry.id)).toEqual([2, 5, 7, 10])
    expect(index.textAt(index.size - 1)).toBe(index.get(10n)?.json)
  })
})
