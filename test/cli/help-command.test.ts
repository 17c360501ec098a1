/**
 * `petstore-mock help [COMMAND]` (src/cli/main.ts) prints what `petstore-mock [COMMAND] --help` prints, and a
 * mistyped command is answered with the command it is likely a typo of, exit code 2, never echoing the word.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { likelyMeant } from '../../src/cli/parse.js'
import { ensureBuilt, runCli } from '../http/support.js'

beforeAll(ensureBuilt)

describe.each([[[]], [['verify']], [['snapshot']], [['config']]])('help %j', (command: string[]) => {
  it('prints the same as --help', async () => {
    const [help, flag] = await Promise.all([runCli(['help', ...command]), runCli([...command, '--help'])])
    expect(help).toEqual({ code: 0, stdout: flag.stdout, stderr: '' })
    expect(flag.stdout).toContain('Usage: petstore-mock')
  })
})

it('names the help command in the top-level --help', async () => {
  expect((await runCli(['--help'])).stdout).toMatch(/^ {2}help +\[COMMAND\]/m)
})

it('suggests the command a mistyped one is likely meant as, with exit code 2', async () => {
  // PETSTORE_PORT: a server the mistake did not stop would listen on a free port, not 4010.
  const typo = await runCli(['verfy'], { PETSTORE_PORT: '0' })
  expect(typo.code).toBe(2)
  expect(typo.stderr).toContain('Did you mean verify?')
  expect(typo.stderr).not.toContain('verfy')
  expect(await runCli(['help', 'snapshto'])).toEqual({
    code: 2,
    stdout: '',
    stderr:
      'petstore-mock help: knows no such command. Did you mean snapshot? The commands are verify, snapshot, config, check-client and mcp.\n',
  })
})

it('suggests nothing for a word close to no command', async () => {
  const { code, stderr } = await runCli(['help', 'sk-some-key'])
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr: 'petstore-mock help: knows no such command. The commands are verify, snapshot, config, check-client and mcp.\n',
  })
})

describe('likelyMeant', () => {
  it.each([
    ['verfy', 'verify'],
    ['cofnig', 'config'],
    ['snap', 'snapshot'],
    ['prot', 'port'],
    ['sate-file', 'state-file'],
    ['bogus', undefined],
    ['xy', undefined],
  ])('%s: %s', (word, meant) => {
    expect(likelyMeant(word, ['verify', 'snapshot', 'config', 'port', 'state-file'])).toBe(meant)
  })
})
