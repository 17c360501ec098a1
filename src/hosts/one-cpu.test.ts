import { describe, expect, it } from 'vitest'
import { concurrentMarkingChoice, tuneForOneCpu } from './one-cpu.js'

describe('concurrent marking on one CPU (decision 016)', () => {
  it('is turned off on one CPU, left to V8 on several', () => {
    expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: [] })).toBe('off')
    expect(concurrentMarkingChoice({ cpus: 2, nodeOptions: ['--max-old-space-size=512'] })).toBe('default')
    expect(concurrentMarkingChoice({ cpus: 64, nodeOptions: [] })).toBe('default')
  })

  it("leaves the user's own choice alone, in either spelling", () => {
    for (const option of ['--concurrent-marking', '--no-concurrent-marking', '--concurrent_marking', '--no-concurrent_marking'])
      expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: ['--enable-source-maps', option] }), option).toBe('user')
    // Another flag that merely starts alike is not a choice about marking.
    expect(concurrentMarkingChoice({ cpus: 1, nodeOptions: ['--concurrent-marking-high-priority-threads'] })).toBe('off')
  })

  it('sets the flag and returns the banner line only when it turns marking off', () => {
    const set: string[] = []
    const line = tuneForOneCpu({ cpus: 1, nodeOptions: [] }, (flags) => set.push(flags))
    expect(set).toEqual(['--no-concurrent-marking'])
    expect(line).toMatch(/one CPU/)
    expect(tuneForOneCpu({ cpus: 2, nodeOptions: [] }, (flags) => set.push(flags))).toBeUndefined()
    expect(tuneForOneCpu({ cpus: 1, nodeOptions: ['--concurrent-marking'] }, (flags) => set.push(flags))).toBeUndefined()
    expect(set).toHaveLength(1)
  })
})
