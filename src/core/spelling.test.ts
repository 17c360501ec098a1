import { describe, expect, it } from 'vitest'
import { likelyMeant } from './spelling.js'

const SCENARIOS = ['default', 'empty-store', 'flaky', 'outage', 'outage-incident', 'sold-out', 'slow-day', 'slow-tail']
const CONFIG_KEYS = ['id', 'port', 'host', 'seed', 'scenario', 'scenarios', 'keys', 'stateFile']

describe('likelyMeant, the one rule of "Did you mean …?"', () => {
  it.each([
    ['flakey', 'flaky'],
    ['sold-out-store', 'sold-out'],
    ['outgae', 'outage'],
    ['slow-dya', 'slow-day'],
    ['nothing-like-it', undefined],
  ])('scenario %s: %s', (word, meant) => {
    expect(likelyMeant(word, SCENARIOS)).toBe(meant)
  })

  it.each([
    ['prot', 'port'],
    ['scenaro', 'scenario'],
    ['statefile', 'stateFile'],
    // A known name under three letters is no part of a longer word: "valid" is no typo of "id".
    ['valid', undefined],
    ['xy', undefined],
  ])('config key %s: %s', (word, meant) => {
    expect(likelyMeant(word, CONFIG_KEYS)).toBe(meant)
  })

  it('takes the name nearest by edit distance over one the typo contains (a one-letter typo of a longer name)', () => {
    expect(likelyMeant('outage-incidet', SCENARIOS)).toBe('outage-incident')
    expect(likelyMeant('outage-incidet', [...SCENARIOS].reverse())).toBe('outage-incident')
    expect(likelyMeant('outages', SCENARIOS)).toBe('outage')
  })

  it('takes the closest of the names a few letters off, not the first', () => {
    expect(likelyMeant('slow-tal', ['slow-day', 'slow-tail'])).toBe('slow-tail')
  })
})
