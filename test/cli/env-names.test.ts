/**
 * One rule for environment variables (src/cli/parse.ts `envName`): `PETSTORE_`, the command after `petstore-mock`
 * (none for the server), the option's name upper-cased with dashes as underscores. The names used before the rule
 * (`oldEnv` in the tables) are still read, each with one line on stderr that names variables only, never a value.
 */
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest'
import { CONFIG } from '../../src/cli/commands/config.js'
import { SNAPSHOT } from '../../src/cli/commands/snapshot.js'
import { VERIFY } from '../../src/cli/commands/verify.js'
import { SERVE } from '../../src/cli/options.js'
import { type Command, envName, type OptionTable, type Parsed, parseCommand } from '../../src/cli/parse.js'

let stderr: MockInstance<typeof process.stderr.write>
beforeEach(() => {
  stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
})
afterEach(() => stderr.mockRestore())

const written = () => stderr.mock.calls.map(([text]) => String(text)).join('')

/** The values read from the environment alone, by a command's table. */
function read<T extends OptionTable>(command: Command<T>, env: Record<string, string>, argv: string[] = []): Parsed<T> {
  const parsed = parseCommand(command, argv, env)
  if (typeof parsed === 'string') throw new Error('expected values, got help text')
  return parsed
}

const SECRET_URL = 'redis://:hunter2-secret@127.0.0.1:6379'

describe('the one rule', () => {
  // By command name: a table's object is not printed (the server's --help intro reads package.json).
  const COMMAND_OF: Record<string, Command<OptionTable>> = { serve: SERVE, verify: VERIFY, snapshot: SNAPSHOT }
  it.each([
    ['serve', 'redis', 'PETSTORE_REDIS'],
    ['serve', 'state-file', 'PETSTORE_STATE_FILE'],
    ['serve', 'journal-max-bytes', 'PETSTORE_JOURNAL_MAX_BYTES'],
    ['verify', 'key', 'PETSTORE_VERIFY_KEY'],
    ['verify', 'free-key', 'PETSTORE_VERIFY_FREE_KEY'],
    ['snapshot', 'target', 'PETSTORE_SNAPSHOT_TARGET'],
    ['snapshot', 'key', 'PETSTORE_SNAPSHOT_KEY'],
  ])('%s --%s: %s', (command, option, variable) => {
    expect(envName(COMMAND_OF[command] as Command<OptionTable>, option)).toBe(variable)
  })

  it('reads every option of every table from its variable', () => {
    for (const command of [SERVE, VERIFY, SNAPSHOT, CONFIG] as Command<OptionTable>[])
      for (const [name, spec] of Object.entries(command.options)) {
        const variable = envName(command, name)
        expect(variable).toMatch(/^PETSTORE_[A-Z0-9_]+$/)
        // Each old name is another name: the rule's own is never listed as old.
        expect(spec.oldEnv ?? []).not.toContain(variable)
        // Read: the value's label is the variable, or a value the option refuses names it.
        let label: string
        try {
          label = read(command, { [variable]: spec.value === undefined ? '1' : 'x' }).label(name)
        } catch (error) {
          label = (error as Error).message.split(' ')[0] as string
        }
        expect(label, `--${name}`).toBe(variable)
      }
  })

  it('lists the names used before the rule as old names', () => {
    const old = [SERVE, VERIFY, SNAPSHOT].flatMap((command: Command<OptionTable>) =>
      Object.values(command.options).flatMap((spec) => spec.oldEnv ?? []),
    )
    expect(old.sort()).toEqual(['PETSTORE_REDIS_URL', 'PETSTORE_TARGET_KEY'])
  })
})

describe('an old name', () => {
  it('the new name works, without a warning', () => {
    expect(read(SERVE, { PETSTORE_REDIS: SECRET_URL }).values.redis).toBe(SECRET_URL)
    expect(written()).toBe('')
  })

  it('still works and warns once, naming the variables and never the value', () => {
    const parsed = read(SERVE, { PETSTORE_REDIS_URL: SECRET_URL })
    expect(parsed.values.redis).toBe(SECRET_URL)
    expect(parsed.label('redis')).toBe('PETSTORE_REDIS_URL')
    expect(written()).toBe(
      'petstore-mock: PETSTORE_REDIS_URL is the old name of PETSTORE_REDIS; it still works, and will be removed in a major version.\n',
    )
    expect(stderr).toHaveBeenCalledTimes(1)
    expect(written()).not.toContain('hunter2')
  })

  it('loses to the new name when both are set, and the warning says so', () => {
    const parsed = read(SERVE, { PETSTORE_REDIS_URL: 'redis://old:6379', PETSTORE_REDIS: 'redis://new:6379' })
    expect(parsed.values.redis).toBe('redis://new:6379')
    expect(parsed.label('redis')).toBe('PETSTORE_REDIS')
    expect(written()).toBe(
      'petstore-mock: PETSTORE_REDIS_URL is the old name of PETSTORE_REDIS; PETSTORE_REDIS is set too and wins, and will be removed in a major version.\n',
    )
  })

  it("of snapshot's key works the same way, and the key is never printed", () => {
    const args = ['--target', 'http://127.0.0.1:9/v1', '--out', 'x.json']
    expect(read(SNAPSHOT, { PETSTORE_TARGET_KEY: 'sk-old-secret' }, args).values.key).toBe('sk-old-secret')
    expect(written()).toBe(
      'petstore-mock snapshot: PETSTORE_TARGET_KEY is the old name of PETSTORE_SNAPSHOT_KEY; it still works, and will be removed in a major version.\n',
    )
    stderr.mockClear()
    expect(read(SNAPSHOT, { PETSTORE_SNAPSHOT_KEY: 'sk-new-secret' }, args).values.key).toBe('sk-new-secret')
    expect(written()).toBe('')
  })

  it('is not warned about for --help, which reads no variable', () => {
    expect(typeof parseCommand(SNAPSHOT, ['--help'], { PETSTORE_TARGET_KEY: 'sk-old-secret' })).toBe('string')
    expect(written()).toBe('')
  })
})
