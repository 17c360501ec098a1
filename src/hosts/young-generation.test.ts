import { describe, expect, it } from 'vitest'
import { type YoungGenerationFacts, youngGenerationChoice } from './young-generation.js'

const NODE_20 = '11.3.244.8-node.33'
const NODE_22 = '12.4.254.21-node.57'
const NODE_24 = '13.6.233.17-node.53'
const NODE_26 = '14.6.202.34-node.34'
const GB = 2 ** 30

/** Node 24 on a machine whose heap limit is 4 GB (this one: 24 GiB of memory), started by hand. */
const facts = (overrides: Partial<YoungGenerationFacts> = {}): YoungGenerationFacts => ({
  v8: NODE_24,
  nodeOptions: [],
  env: {},
  heapLimit: 4.2 * GB,
  ...overrides,
})

describe('the young generation of the standalone server (decision 017)', () => {
  it('asks for 16 MB from V8 13 on, where the default grows with the memory limit', () => {
    expect(youngGenerationChoice(facts())).toBe('smaller')
    expect(youngGenerationChoice(facts({ v8: NODE_26 }))).toBe('smaller')
  })

  it('keeps the default before V8 13', () => {
    expect(youngGenerationChoice(facts({ v8: NODE_20 }))).toBe('default')
    expect(youngGenerationChoice(facts({ v8: NODE_22 }))).toBe('default')
  })

  it('keeps the default at a heap limit of 2.25 GB or less', () => {
    expect(youngGenerationChoice(facts({ heapLimit: 2 * GB + 48 * 2 ** 20 }))).toBe('default')
    expect(youngGenerationChoice(facts({ heapLimit: 2.5 * GB }))).toBe('smaller')
  })

  it("keeps the user's size, given to node or in NODE_OPTIONS, in either spelling", () => {
    for (const option of ['--max-semi-space-size=64', '--max_semi_space_size=8', '--min-semi-space-size=4'])
      expect(youngGenerationChoice(facts({ nodeOptions: ['--enable-source-maps', option] })), option).toBe('user')
    expect(youngGenerationChoice(facts({ env: { NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=32' } }))).toBe('user')
    // An option that merely starts alike is not a size.
    expect(youngGenerationChoice(facts({ nodeOptions: ['--semi-space-growth-factor=2'] }))).toBe('smaller')
  })
})
