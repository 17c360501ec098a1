import { describe, expect, it } from 'vitest'
import { durationMsOf } from './duration.js'

describe('durationMsOf, the one reader of a length of time', () => {
  it.each([
    ['250ms', 250],
    ['90s', 90_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1.5s', 1_500],
    ['-15m', -900_000],
    ['PT1H30M', 5_400_000],
    ['PT1M30S', 90_000],
    ['P1D', 86_400_000],
    ['PT0.5S', 500],
  ])('%s is %d ms', (text, ms) => {
    expect(durationMsOf(text)).toBe(ms)
  })

  it.each(['', '90', 'P', 'PT', 'P1DT', '5 minutes', '1w', 'm5'])('%j is no duration', (text) => {
    expect(durationMsOf(text)).toBeUndefined()
  })
})
