import { describe, expect, it } from 'vitest'
import { concurrentMarkingChoice, tuneForOneCpu } from './one-cpu.js'

const NODE_20 = '11.3.244.8-node.33'
const NODE_22 = '12.4.254.21-node.33'
const NODE_24 = '13.6.233.17-node.37'

describe('concurrent marking on one CPU (decision 016)', () => {
  it('is turned off on one CPU, left to V8 on several', () => {
    expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: [], v8: NODE_20 })).toBe('off')
    expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: [], v8: NODE_22 })).toBe('off')
    expect(concurrentMarkingChoice({ cpus: 2, nodeOptions: ['--max-old-space-size=512'], v8: NODE_20 })).toBe('default')
    expect(concurrentMarkingChoice({ cpus: 64, nodeOptions: [], v8: NODE_20 })).toBe('default')
  })

  it('is left to V8 from V8 13 (Node 24) on, where a full collection without the marking thread paused for 120-190 ms', () => {
    expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: [], v8: NODE_24 })).toBe('default')
    expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: [], v8: '14.1.146.11-node.12' })).toBe('default')
    expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: ['--no-concurrent-marking'], v8: NODE_24 })).toBe('user')
    const set: string[] = []
    expect(tuneForOneCpu({ cpus: 1, nodeOptions: [], v8: NODE_24 }, (flags) => set.push(flags))).toBeUndefined()
    expect(set).toEqual([])
  })

  it("leaves the user's own choice alone, in either spelling", () => {
    for (const option of ['--concurrent-marking', '--no-concurrent-marking', '--concurrent_marking', '--no-concurrent_marking'])
      expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: ['--enable-source-maps', option], v8: NODE_20 }), option).toBe('user')
    // Another flag that merely starts alike is not a choice about marking.
    expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: ['--concurrent-marking-high-priority-threads'], v8: NODE_20 })).toBe('off')
  })

  it('sets the flag and returns the banner line only when it turns marking off', () => {
    const set: string[] = []
    const line = tuneForOneCpu({ cpus: 1, nodeOptions: [], v8: NODE_20 }, (flags) => set.push(flags))
    expect(set).toEqual(['--no-concurrent-marking'])
    expect(line).toMatch(/one CPU/)
    expect(tuneForOneCpu({ cpus: 2, nodeOptions: [], v8: NODE_20 }, (flags) => set.push(flags))).toBeUndefined()
    expect(tuneForOneCpu({ cpus: 1, nodeOptions: ['--concurrent-marking'], v8: NODE_20 }, (flags) => set.push(flags))).toBeUndefined()
    expect(set).toHaveLength(1)
  })
})
