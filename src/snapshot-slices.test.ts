import { describe, expect, it } from 'vitest'
import { stringifyJson } from './core/json.js'
import { parseSnapshot, stringifySnapshot, type WorldSnapshot } from './snapshot.js'
import { parseSnapshotInSlices } from './snapshot-slices.js'

const pause = () => Promise.resolve()

/** A valid state of `count` pets, ids 1..count, names that JSON must escape. */
function state(count: number): WorldSnapshot {
  const pets = Array.from({ length: count }, (_, i) => ({
    id: BigInt(i + 1),
    name: i % 7 === 0 ? `Rex "the ]},[{ one" \\ ${i}` : `Pet ${i}`,
    categoryId: BigInt((i % 5) + 1),
    ...(i % 3 === 0 ? {} : { status: 'available' as const }),
  }))
  return { version: 1, pets, nextId: BigInt(count + 1), rateLimits: {}, clock: { frozenAt: null, offset: 0 } }
}

describe('parseSnapshotInSlices', () => {
  it.each([
    ['compact, pets first', stringifySnapshot(state(4_500))],
    ['pretty-printed', stringifySnapshot(state(2_001), 2)],
    ['pets last', stringifyJson({ ...state(3), pets: undefined, nextId: 4n }).replace(/}$/, `,"pets":${stringifyJson(state(3).pets)}}`)],
    ['no pets', stringifySnapshot(state(0))],
    ['ids past 2^53', stringifySnapshot({ ...state(1), pets: [{ id: 2n ** 60n, name: 'Big', categoryId: 1n }], nextId: 2n ** 60n + 1n })],
  ])('reads a state %s as parseSnapshot does', async (_, text) => {
    expect(await parseSnapshotInSlices(text, pause)).toEqual(parseSnapshot(text))
  })

  it('gives the event loop back between slices of pets', async () => {
    let pauses = 0
    const result = await parseSnapshotInSlices(stringifySnapshot(state(10_000)), async () => {
      pauses += 1
    })
    expect(result.ok).toBe(true)
    expect(pauses).toBe(5)
  })

  it('names a bad field of a later slice by its index among all the pets', async () => {
    const snapshot = state(4_100)
    const text = stringifySnapshot(snapshot).replace('"name":"Pet 4050"', '"name":7')
    expect(await parseSnapshotInSlices(text, pause)).toEqual({ ok: false, message: expect.stringContaining('pets[4050].name') })
  })

  it('refuses an id an earlier slice had, and a next id not above the largest', async () => {
    const pets = [...state(2_500).pets, { id: 3n, name: 'Again', categoryId: 1n }]
    const duplicate = stringifySnapshot({ ...state(0), pets, nextId: 2_600n })
    // The same message as the whole state's check (src/snapshot.ts).
    expect(await parseSnapshotInSlices(duplicate, pause)).toEqual(parseSnapshot(duplicate))
    const low = stringifySnapshot({ ...state(2_500), nextId: 10n })
    expect(await parseSnapshotInSlices(low, pause)).toEqual(parseSnapshot(low))
  })

  it.each([
    ['text that is not JSON', '{"pets":[{"id":1,'],
    ['an array', '[]'],
    ['two "pets" keys', `{"pets":[],${stringifySnapshot(state(1)).slice(1)}`],
    ['"pets" written with an escape', stringifySnapshot(state(2)).replace('"pets"', '"pe\\u0074s"')],
    ['text after the object', `${stringifySnapshot(state(1))} x`],
  ])('leaves %s to parseSnapshot, which names the problem', async (_, text) => {
    expect(await parseSnapshotInSlices(text, pause)).toEqual(parseSnapshot(text))
  })
})
