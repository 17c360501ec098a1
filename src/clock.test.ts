import { describe, expect, it } from 'vitest'
import { createClock } from './clock.js'

describe('createClock', () => {
  it('runs on real time by default', () => {
    let real = 1_000
    const clock = createClock(() => real)
    expect(clock.now()).toBe(1_000)
    real = 2_000
    expect(clock.now()).toBe(2_000)
    expect(clock.frozen).toBe(false)
  })
  it('freezes at a set moment while real time passes', () => {
    let real = 0
    const clock = createClock(() => real)
    clock.set('2030-12-05T00:00:00Z')
    real = 99_999
    expect(clock.now()).toBe(Date.parse('2030-12-05T00:00:00Z'))
  })
  it('moves a frozen clock by advance, leaving it frozen', () => {
    let real = 0
    const clock = createClock(() => real)
    clock.set('2030-12-05T00:00:00Z')
    real = 99_999
    clock.advance(60_000)
    expect(new Date(clock.now()).toISOString()).toBe('2030-12-05T00:01:00.000Z')
    expect(clock.frozen).toBe(true)
  })
  it('shifts a running clock by advance', () => {
    let real = 1_000
    const clock = createClock(() => real)
    clock.advance(500)
    real = 2_000
    expect(clock.now()).toBe(2_500)
  })
  it('returns a shifted clock to real time on useRealTime', () => {
    let real = 1_000
    const clock = createClock(() => real)
    clock.advance(500)
    real = 2_000
    clock.useRealTime()
    expect(clock.now()).toBe(2_000)
  })
  it('refuses an invalid moment with a message naming the fix', () => {
    const clock = createClock()
    expect(() => clock.set('next tuesday')).toThrow(/\[petstore-mock\] Invalid time "next tuesday".*ISO 8601/)
    expect(() => clock.advance(Number.NaN)).toThrow(/finite number/)
  })
})

describe('clock.set with running', () => {
  it('runs on from the moment it is set to with running: true', () => {
    let real = 10_000
    const clock = createClock(() => real)
    clock.set('2030-12-05T00:00:01Z', { running: true })
    real += 2_000
    expect(new Date(clock.now()).toISOString()).toBe('2030-12-05T00:00:03.000Z')
    expect(clock.frozen).toBe(false)
  })
})
