import { describe, expect, it } from 'vitest'
import { oneCpuChoice, tuneForOneCpu } from './one-cpu.js'

const NODE_20 = '11.3.244.8-node.33'
const NODE_22 = '12.4.254.21-node.33'
const NODE_24 = '13.6.233.17-node.37'
const NODE_26 = '14.6.202.34-node.34'

describe('the collector on one CPU (decisions 016 and 018)', () => {
  it('turns concurrent marking off on one CPU before V8 13, leaves V8 alone on several', () => {
    expect(oneCpuChoice({ cpus: 1, nodeOptions: [], v8: NODE_20 })).toBe('no-concurrent-marking')
    expect(oneCpuChoice({ cpus: 1, nodeOptions: [], v8: NODE_22 })).toBe('no-concurrent-marking')
    expect(oneCpuChoice({ cpus: 2, nodeOptions: ['--max-old-space-size=512'], v8: NODE_20 })).toBe('default')
    expect(oneCpuChoice({ cpus: 64, nodeOptions: [], v8: NODE_20 })).toBe('default')
  })

  it('asks for a single-threaded collector on one CPU from V8 13 on, where marking on the main thread alone paused for 120-190 ms', () => {
    expect(oneCpuChoice({ cpus: 1, nodeOptions: [], v8: NODE_24 })).toBe('single-threaded')
    expect(oneCpuChoice({ cpus: 1, nodeOptions: [], v8: NODE_26 })).toBe('single-threaded')
    expect(oneCpuChoice({ cpus: 2, nodeOptions: [], v8: NODE_24 })).toBe('default')
    // That flag is given to node at its start (start-flags.ts), never set at run time here.
    const set: string[] = []
    expect(tuneForOneCpu({ cpus: 1, nodeOptions: [], v8: NODE_24 }, (flags) => set.push(flags))).toBeUndefined()
    expect(set).toEqual([])
  })

  it("leaves the user's own choice about the collector's threads alone, in either spelling", () => {
    const options = [
      '--concurrent-marking',
      '--no-concurrent-marking',
      '--concurrent_marking',
      '--no-concurrent_marking',
      '--single-threaded-gc',
      '--no-single-threaded-gc',
      '--single_threaded_gc',
      '--single-threaded',
    ]
    for (const v8 of [NODE_20, NODE_24])
      for (const option of options)
        expect(oneCpuChoice({ cpus: 1, nodeOptions: ['--enable-source-maps', option], v8 }), `${v8} ${option}`).toBe('user')
    // Another flag that merely starts alike is not a choice about the threads.
    expect(oneCpuChoice({ cpus: 1, nodeOptions: ['--concurrent-marking-high-priority-threads'], v8: NODE_20 })).toBe(
      'no-concurrent-marking',
    )
    expect(oneCpuChoice({ cpus: 1, nodeOptions: ['--single-threaded-gc-in-background'], v8: NODE_24 })).toBe('single-threaded')
  })

  /** Tunes once where marking is turned off; `set` collects the flags set. */
  function tunedOnce() {
    const set: string[] = []
    const line = tuneForOneCpu({ cpus: 1, nodeOptions: [], v8: NODE_20 }, (flags) => set.push(flags))
    return { set, line }
  }

  it('sets the flag when it turns marking off, returning the banner line', () => {
    const { set, line } = tunedOnce()
    expect(set).toEqual(['--no-concurrent-marking'])
    expect(line).toMatch(/one CPU/)
  })

  it('sets no flag, returning no banner line, when it leaves marking on', () => {
    const { set } = tunedOnce()
    expect(tuneForOneCpu({ cpus: 2, nodeOptions: [], v8: NODE_20 }, (flags) => set.push(flags))).toBeUndefined()
    expect(tuneForOneCpu({ cpus: 1, nodeOptions: ['--concurrent-marking'], v8: NODE_20 }, (flags) => set.push(flags))).toBeUndefined()
    expect(set).toHaveLength(1)
  })
})
