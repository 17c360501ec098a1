import { describe, expect, it } from 'vitest'
import { chooseStartFlags, RESTARTED_ENV, type StartFacts, startChoice } from './start-flags.js'

const NODE_20 = '11.3.244.8-node.33'
const NODE_24 = '13.6.233.17-node.53'
const GB = 2 ** 30
const SEMI = '--max-semi-space-size=16'
const SINGLE = '--single-threaded-gc'

/** Node 24 on two CPUs and a heap limit of 4 GB (this machine: 24 GiB of memory), started by hand. */
const facts = (overrides: Partial<StartFacts> = {}): StartFacts => ({
  v8: NODE_24,
  nodeOptions: [],
  env: {},
  heapLimit: 4.2 * GB,
  cpus: 2,
  canReplace: true,
  ...overrides,
})

describe("the flags node is started with for the standalone server's collector (decisions 017 and 018)", () => {
  it('starts node again with each flag a rule asks for', () => {
    expect(startChoice(facts())).toEqual({ kind: 'replace', flags: [SEMI] })
    expect(startChoice(facts({ cpus: 1 }))).toEqual({ kind: 'replace', flags: [SEMI, SINGLE] })
    expect(startChoice(facts({ cpus: 1, heapLimit: 2 * GB }))).toEqual({ kind: 'replace', flags: [SINGLE] })
    expect(startChoice(facts({ cpus: 1, nodeOptions: ['--max-semi-space-size=32'] }))).toEqual({ kind: 'replace', flags: [SINGLE] })
    expect(startChoice(facts({ cpus: 1, nodeOptions: ['--concurrent-marking'] }))).toEqual({ kind: 'replace', flags: [SEMI] })
  })

  it('does not start node again when no rule asks for a flag', () => {
    expect(startChoice(facts({ heapLimit: 2 * GB }))).toEqual({ kind: 'as-started' })
    // Before V8 13 neither: a 16 MB semi-space is the default, and one CPU is handled at run time (decision 016).
    expect(startChoice(facts({ v8: NODE_20, cpus: 1 }))).toEqual({ kind: 'as-started' })
  })

  it('does not start again without execve, under an IPC channel or under an inspector, whose connections would be lost', () => {
    expect(startChoice(facts({ cpus: 1, canReplace: false }))).toEqual({ kind: 'as-started' })
    expect(startChoice(facts({ cpus: 1, env: { NODE_CHANNEL_FD: '3' } }))).toEqual({ kind: 'as-started' })
    expect(startChoice(facts({ nodeOptions: ['--inspect=127.0.0.1:9229'] }))).toEqual({ kind: 'as-started' })
    expect(startChoice(facts({ nodeOptions: ['--inspect-brk'] }))).toEqual({ kind: 'as-started' })
  })

  it('knows the process it started, saying what it was given', () => {
    const both = startChoice(facts({ cpus: 1, nodeOptions: [SEMI, SINGLE], env: { [RESTARTED_ENV]: `${SEMI} ${SINGLE}` } }))
    expect(both.kind).toBe('replaced')
    expect(both.kind === 'replaced' && both.lines).toEqual([
      expect.stringMatching(/^ {2}GC: a young generation of 16 MB.*decision 017/),
      expect.stringMatching(/^ {2}GC: one CPU, so V8 collects on the server's thread only.*decision 018/),
    ])
  })

  it('never starts twice, even when the process it started lacks the flags, claiming none in the banner', () => {
    // The marker without the flags (execve ran something else): no second start, no claim in the banner.
    expect(startChoice(facts({ cpus: 1, env: { [RESTARTED_ENV]: `${SEMI} ${SINGLE}` } }))).toEqual({ kind: 'replaced', lines: [] })
  })

  it("replaces the process with node given the user's own options, then the flags, with the same arguments in the same environment", () => {
    const calls: [string, string[], Record<string, string | undefined>][] = []
    const lines = chooseStartFlags(
      facts({ cpus: 1, nodeOptions: ['--enable-source-maps'], env: { PETSTORE_SEED: '7' } }),
      (file, args, env) => calls.push([file, args, env]),
      ['/usr/bin/node', '/app/dist/src/cli.js', '--port', '0'],
      '/usr/bin/node',
    )
    expect(lines).toEqual([])
    expect(calls).toEqual([
      [
        '/usr/bin/node',
        ['/usr/bin/node', '--enable-source-maps', SEMI, SINGLE, '/app/dist/src/cli.js', '--port', '0'],
        { PETSTORE_SEED: '7', [RESTARTED_ENV]: `${SEMI} ${SINGLE}` },
      ],
    ])
  })

  it('serves on with the defaults when execve fails', () => {
    const failing = () => {
      throw new Error('EACCES')
    }
    expect(chooseStartFlags(facts(), failing, ['node', 'cli.js'], 'node')).toEqual([])
  })

  it('names the flags in the banner only in the process started with them', () => {
    const never = () => {
      throw new Error('must not be called')
    }
    const started = facts({ nodeOptions: [SEMI], env: { [RESTARTED_ENV]: SEMI } })
    expect(chooseStartFlags(started, never, ['node', 'cli.js'], 'node')).toEqual([expect.stringMatching(/decision 017/)])
    expect(chooseStartFlags(facts({ v8: NODE_20 }), never, ['node', 'cli.js'], 'node')).toEqual([])
  })
})
