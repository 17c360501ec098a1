import { describe, expect, it } from 'vitest'
import { parseJson } from './core/json.js'
import { INT64_MAX } from './schemas.js'
import { parseSnapshot, snapshotPieces, stringifySnapshot, type WorldSnapshot } from './snapshot.js'

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
  for (const count of [0, 1, 1_999, 2_000, 2_001, 5_000]) {
    it(`reads back as the same state as the snapshot written whole, with ${count} pets`, () => {
      const pieces = [...snapshotPieces(state(count))]
      const whole = parseJson(stringifySnapshot(state(count)))
      const inPieces = parseJson(pieces.join(''))
      expect(inPieces).toEqual(whole)
      const parsed = parseSnapshot(pieces.join(''))
      expect(parsed.ok && parsed.snapshot.pets).toHaveLength(count)
      // A few thousand pets a piece, so a writer can let requests through between them.
      expect(pieces.length).toBe(Math.ceil(count / 2_000) + 1)
    })
  }
})
