/**
 * The catalogue names the scenarios a start must check: the user's own (new ones, and shipped ones they override),
 * not the shipped files, which the suite checks (test/scenarios) instead of every start of the CLI.
 */
import { describe, expect, it } from 'vitest'
import { BUILT_IN_SCENARIOS, createScenarioCatalogue } from './catalogue.js'

describe('createScenarioCatalogue', () => {
  it("lists the user's scenarios as its own, shipped ones they override included, and no other", () => {
    const mine = { name: 'mine', description: 'a scenario of the user' }
    const outage = { name: 'outage', description: 'the user’s own outage' }
    const catalogue = createScenarioCatalogue([{ scenario: mine, source: 'my/mine.json' }, outage])
    expect(catalogue.ownNames()).toEqual(['mine', 'outage'])
    expect(catalogue.names()).toEqual(expect.arrayContaining([...Object.keys(BUILT_IN_SCENARIOS), 'mine']))
    expect(createScenarioCatalogue().ownNames()).toEqual([])
  })
})
