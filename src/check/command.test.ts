/**
 * The evidence of a task that failed names its error: the head of a stack, not node's closing `Node.js v…` line.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { errorLine } from './command.js'

describe('errorLine', () => {
  it("names the error of a node task that threw, not node's version line after the stack", () => {
    const { stderr } = spawnSync(process.execPath, ['-e', "throw new TypeError('the SDK gave up')"], { encoding: 'utf8' })
    expect(stderr.trim().split('\n').at(-1)).toMatch(/^Node\.js v\d/)
    expect(errorLine(stderr)).toBe('TypeError: the SDK gave up')
  })

  it('takes the last line of other output, and nothing of none', () => {
    expect(errorLine('curl: (7) Failed to connect\nretrying\ngave up after 3 tries\n')).toBe('gave up after 3 tries')
    expect(errorLine('')).toBeUndefined()
  })
})
