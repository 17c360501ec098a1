import { describe, expect, it } from 'vitest'
import { chooseYoungGeneration, RESTARTED_ENV, type StartFacts, youngGenerationChoice } from './young-generation.js'

const NODE_20 = '11.3.244.8-node.33'
const NODE_22 = '12.4.254.21-node.57'
const NODE_24 = '13.6.233.17-node.53'
const NODE_26 = '14.6.202.34-node.34'
const GB = 2 ** 30

/** Node 24 on a machine whose heap limit is 4 GB (this one: 24 GiB of memory), started by hand. */
const facts = (overrides: Partial<StartFacts> = {}): StartFacts => ({
  v8: NODE_24,
  nodeOptions: [],
  env: {},
  heapLimit: 4.2 * GB,
  canReplace: true,
  ...overrides,
})

describe('the young generation of the standalone server (decision 017)', () => {
  it('starts again with 16 MB from V8 13 on, where the default grows with the memory limit', () => {
    expect(youngGenerationChoice(facts())).toBe('replace')
    expect(youngGenerationChoice(facts({ v8: NODE_26 }))).toBe('replace')
  })

  it('keeps the default before V8 13, at a heap limit of 2 GB or less, and without execve', () => {
    expect(youngGenerationChoice(facts({ v8: NODE_20 }))).toBe('default')
    expect(youngGenerationChoice(facts({ v8: NODE_22 }))).toBe('default')
    expect(youngGenerationChoice(facts({ heapLimit: 2 * GB + 48 * 2 ** 20 }))).toBe('default')
    expect(youngGenerationChoice(facts({ heapLimit: 2.5 * GB }))).toBe('replace')
    expect(youngGenerationChoice(facts({ canReplace: false }))).toBe('default')
  })

  it("keeps the user's size, given to node or in NODE_OPTIONS, in either spelling", () => {
    for (const option of ['--max-semi-space-size=64', '--max_semi_space_size=8', '--min-semi-space-size=4'])
      expect(youngGenerationChoice(facts({ nodeOptions: ['--enable-source-maps', option] })), option).toBe('user')
    expect(youngGenerationChoice(facts({ env: { NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=32' } }))).toBe('user')
    // An option that merely starts alike is not a size.
    expect(youngGenerationChoice(facts({ nodeOptions: ['--semi-space-growth-factor=2'] }))).toBe('replace')
  })

  it('does not start again under an IPC channel or an inspector, whose connections would be lost', () => {
    expect(youngGenerationChoice(facts({ env: { NODE_CHANNEL_FD: '3' } }))).toBe('default')
    expect(youngGenerationChoice(facts({ nodeOptions: ['--inspect=127.0.0.1:9229'] }))).toBe('default')
    expect(youngGenerationChoice(facts({ nodeOptions: ['--inspect-brk'] }))).toBe('default')
  })

  it('knows the process it started, and never starts again twice', () => {
    const started = { nodeOptions: ['--max-semi-space-size=16'], env: { [RESTARTED_ENV]: '16' } }
    expect(youngGenerationChoice(facts(started))).toBe('replaced')
    // The marker without the flag (execve ran something else): no second start, no claim in the banner.
    expect(youngGenerationChoice(facts({ env: { [RESTARTED_ENV]: '16' } }))).toBe('default')
  })

  it("replaces the process with node, the user's own options, the flag and the same arguments and environment", () => {
    const calls: [string, string[], Record<string, string | undefined>][] = []
    const line = chooseYoungGeneration(
      facts({ nodeOptions: ['--enable-source-maps'], env: { PETSTORE_SEED: '7' } }),
      (file, args, env) => calls.push([file, args, env]),
      ['/usr/bin/node', '/app/dist/src/cli.js', '--port', '0'],
      '/usr/bin/node',
    )
    expect(line).toBeUndefined()
    expect(calls).toEqual([
      [
        '/usr/bin/node',
        ['/usr/bin/node', '--enable-source-maps', '--max-semi-space-size=16', '/app/dist/src/cli.js', '--port', '0'],
        { PETSTORE_SEED: '7', [RESTARTED_ENV]: '16' },
      ],
    ])
  })

  it('serves on with the default when execve fails, and says so only in the process started with the flag', () => {
    const failing = () => {
      throw new Error('EACCES')
    }
    expect(chooseYoungGeneration(facts(), failing, ['node', 'cli.js'], 'node')).toBeUndefined()
    const never = () => {
      throw new Error('must not be called')
    }
    const started = facts({ nodeOptions: ['--max-semi-space-size=16'], env: { [RESTARTED_ENV]: '16' } })
    expect(chooseYoungGeneration(started, never, ['node', 'cli.js'], 'node')).toMatch(/^ {2}GC: a young generation of 16 MB.*decision 017/)
    expect(chooseYoungGeneration(facts({ v8: NODE_20 }), never, ['node', 'cli.js'], 'node')).toBeUndefined()
  })
})
