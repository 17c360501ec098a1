import { describe, expect, it } from 'vitest'
import { createClock, EARLIEST_TIME, LATEST_TIME, MAX_TIME } from './clock.js'

describe('createClock', () => {
  it('runs on real time by default', () => {
    let real = 1_000
    const clock = createClock(() => real)
    expect(clock.now()).toBe(1_000)
    real = 2_000
    expect(clock.now()).toBe(2_000)
    expect(clock.frozen).toBe(false)
  })
  it('runs `speed` virtual ms a real ms from where it is set, and stays frozen when frozen', () => {
    let real = 1_000
    const clock = createClock(() => real, { speed: 60 })
    clock.set('2026-06-01T12:00:00Z', { running: true })
    real += 1_000 // one real second
    expect(new Date(clock.now()).toISOString()).toBe('2026-06-01T12:01:00.000Z')
    clock.advance(60_000)
    real += 500
    expect(new Date(clock.now()).toISOString()).toBe('2026-06-01T12:02:30.000Z')
    clock.set('2026-06-01T13:00:00Z')
    real += 10_000
    expect(new Date(clock.now()).toISOString()).toBe('2026-06-01T13:00:00.000Z')
  })
  it('saves a fast clock as an offset from real time, so a restart (any speed) reads the same moment', () => {
    let real = 5_000
    const fast = createClock(() => real, { speed: 60 })
    fast.set('2026-06-01T12:00:00Z', { running: true })
    real += 2_000
    const saved = fast.snapshot()
    expect(saved.frozenAt).toBeNull()
    expect(real + saved.offset).toBe(Date.parse('2026-06-01T12:02:00Z'))
    const again = createClock(() => real, { speed: 60 })
    again.restore(saved)
    expect(new Date(again.now()).toISOString()).toBe('2026-06-01T12:02:00.000Z')
    real += 1_000
    expect(new Date(again.now()).toISOString()).toBe('2026-06-01T12:03:00.000Z')
  })
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses the speed %s, naming the fix', (speed) => {
    expect(() => createClock(Date.now, { speed })).toThrow(/speed must be a positive number \(60: a minute a second\)/)
  })
  it('saves a clock on real time with offset 0, however real time moves while it is read (test/state/snapshot.test.ts)', () => {
    let real = 1_000
    const clock = createClock(() => real++) // each reading a millisecond later
    expect(clock.snapshot()).toEqual({ frozenAt: null, offset: 0 })
    clock.restore({ frozenAt: null, offset: 0 })
    expect(clock.snapshot()).toEqual({ frozenAt: null, offset: 0 })
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
  it('stops a running clock at the end of its range instead of running past it', () => {
    let real = 0
    const clock = createClock(() => real)
    clock.set('9999-12-31T23:59:59.900Z', { running: true })
    real += 1_000
    expect(clock.now()).toBe(LATEST_TIME)
    expect(new Date(clock.now()).toISOString()).toBe('9999-12-31T23:59:59.999Z')
    // A day past it is still a Date, so a window's end or a ban's end can be printed.
    expect(new Date(clock.now() + 86_400_000).toISOString()).toBe('+010000-01-01T23:59:59.999Z')
  })

  it("refuses a moment outside its range, naming the range: a Date's own ends and the time before the epoch", () => {
    const clock = createClock()
    clock.set('2026-06-01T12:00:00Z')
    for (const moment of ['+275760-09-13T00:00:00Z', '-271821-04-20T00:00:00Z', '1969-12-31T23:59:59Z', MAX_TIME, LATEST_TIME + 1]) {
      expect(() => clock.set(moment)).toThrow(/outside the clock's range, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59\.999Z/)
    }
    expect(() => clock.advance(MAX_TIME)).toThrow(/outside its range, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59\.999Z/)
    expect(() => clock.advance(-Date.parse('2026-06-02T00:00:00Z'))).toThrow(/outside its range/)
    // Nothing refused moved it; both ends themselves are taken.
    expect(new Date(clock.now()).toISOString()).toBe('2026-06-01T12:00:00.000Z')
    clock.set(EARLIEST_TIME)
    expect(clock.now()).toBe(0)
    clock.set('9999-12-31T23:59:59.999Z')
    expect(clock.now()).toBe(LATEST_TIME)
  })

  it('reads a restored setting outside its range at the nearest end', () => {
    const clock = createClock(() => 0)
    clock.restore({ frozenAt: MAX_TIME, offset: 0 })
    expect(clock.now()).toBe(LATEST_TIME)
    clock.restore({ frozenAt: -MAX_TIME, offset: 0 })
    expect(clock.now()).toBe(EARLIEST_TIME)
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
