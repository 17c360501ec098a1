/**
 * `--config FILE` (docs/server.md, "A config file"): every option in one JSON file, flags > environment > file > defaults,
 * errors that name their source, the file's JSON Schema shipped and current, and the same file loaded in-process;
 * `petstore-mock config validate FILE` (src/cli/commands/config.ts), each problem one line `FILE: key: message`
 * naming the key, what it allows and what it got, never a zod dump, as the server prints it too.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { ConfigSchema, configJsonSchema, loadConfig } from '../../src/server/config-file.js'
import { auth, ensureBuilt, killClis, ROOT, runCli, startCli } from '../http/support.js'

let dir = ''
const write = async (content: unknown, name = 'petstore-mock.json') => {
  const file = join(dir, name)
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content))
  return file
}

beforeAll(ensureBuilt, 90_000)
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-config-'))
})
afterEach(async () => {
  await killClis()
  await rm(dir, { recursive: true, force: true })
})
afterAll(killClis)

const EXAMPLE = {
  $schema: './node_modules/petstore-mock/config.schema.json',
  port: 0,
  seed: 7,
  pets: 3,
  log: 'silent',
  queryValidation: 'lenient',
  defaultStatus: 'available',
  keys: [{ key: 'qa-key', plan: 'enterprise', limits: { perMinute: 2 } }],
  rateLimit: { retryAfterFormat: 'http-date', banAfterEarlyRetries: 3 },
  stateFile: 'state/state.json',
}

describe('the config file', () => {
  it('sets options the command line has no flag for: keys with limits, query validation, default status, Retry-After format', async () => {
    const file = await write(EXAMPLE)
    await mkdir(join(dir, 'state'))
    const cli = await startCli(['--config', file])
    expect(cli.stdout()).toContain(`Config file ${file}`)
    expect(cli.stdout()).toContain('qa-key')
    const list = await fetch(`${cli.url}/v1/pets?limit=500`, { headers: auth('qa-key') })
    expect(list.status).toBe(200)
    expect(await list.json()).toHaveLength(3)
    const created = await fetch(`${cli.url}/v1/pets`, {
      method: 'POST',
      headers: auth('qa-key', { 'content-type': 'application/json' }),
      body: '{"name":"Rex","categoryId":1}',
    })
    expect(await created.json()).toEqual({ id: 4, name: 'Rex', categoryId: 1, status: 'available' })
    const limited = await fetch(`${cli.url}/v1/pets`, { headers: auth('qa-key') })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/)
    expect(cli.stdout()).toContain(`state file ${join(dir, 'state', 'state.json')}`)
  })

  /** A config file of 3 pets. */
  const threePets = () => write({ port: 0, pets: 3, log: 'silent' })

  it('lets the environment win over the file', async () => {
    const file = await threePets()
    const fromEnv = await startCli([], { PETSTORE_CONFIG: file, PETSTORE_PETS: '5' })
    expect(await (await fetch(`${fromEnv.url}/v1/pets?limit=100`, { headers: auth('test-pro') })).json()).toHaveLength(5)
  })

  it('lets a flag win over every other source', async () => {
    const file = await threePets()
    const fromFlag = await startCli(['--config', file, '--pets', '6'], { PETSTORE_PETS: '5' })
    expect(await (await fetch(`${fromFlag.url}/v1/pets?limit=100`, { headers: auth('test-pro') })).json()).toHaveLength(6)
  })

  it('refuses a bad value with exit code 2, naming the file, the field, the values it allows', async () => {
    const file = await write({ rateLimit: { retryAfterFormat: 'minutes' } })
    const result = await runCli(['--config', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(file)
    expect(result.stderr).toContain('rateLimit.retryAfterFormat')
    expect(result.stderr).toMatch(/seconds.*http-date/)
  })

  it('refuses a key it does not know (a typo would be ignored otherwise)', async () => {
    const typo = await runCli(['--config', await write({ prot: 4010 })])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('prot')
  })

  it('refuses a file that is not JSON', async () => {
    const broken = await runCli(['--config', await write('{"port": 4010,', 'broken.json')])
    expect(broken.code).toBe(2)
    expect(broken.stderr).toMatch(/broken\.json: is not valid JSON/)
  })

  it('names the source of a bad value: the flag, the environment variable or the file', async () => {
    expect((await runCli(['--port', 'x'])).stderr).toContain('--port must be a whole number')
    expect((await runCli([], { PETSTORE_PORT: 'x' })).stderr).toContain('PETSTORE_PORT must be a whole number')
    const file = await write({ port: 'x' })
    const fromFile = await runCli(['--config', file])
    expect(fromFile.stderr).toContain(`${file}: port:`)
    expect((await runCli([], { PETSTORE_CONFIG: join(dir, 'missing.json') })).stderr).toContain(
      `PETSTORE_CONFIG ${join(dir, 'missing.json')}: Cannot read the config file`,
    )
  })

  it('loads in-process: createPetStore takes what loadConfig returns', async () => {
    const file = await write({ seed: 7, pets: 2, keys: [{ key: 'k', plan: 'pro' }], defaultStatus: 'sold' })
    const petStore = createPetStore(await loadConfig(file))
    const response = await petStore.fetch('/v1/pets', { headers: { authorization: 'Bearer k' } })
    expect(response.headers.get('x-ratelimit-limit')).toBe('300')
    expect(await response.json()).toHaveLength(2)
  })
})

describe('the config file JSON Schema', () => {
  it('is shipped current: config.schema.json is what the zod schema writes (npm run config-schema)', async () => {
    expect(await readFile(join(ROOT, 'config.schema.json'), 'utf8')).toBe(configJsonSchema())
  })

  it('accepts the example of the section "A config file" of docs/server.md', async () => {
    const guide = await readFile(join(ROOT, 'docs', 'server.md'), 'utf8')
    const section = guide.slice(guide.indexOf('## A config file'))
    const example = /```json\n([\s\S]*?)```/.exec(section)?.[1]
    expect(example).toBeDefined()
    expect(ConfigSchema.safeParse(JSON.parse(example as string)).error).toBeUndefined()
  })

  /** The shipped JSON Schema, compiled by ajv as an editor or a CI check would. */
  const compiled = () => {
    const ajv = new Ajv2020.default({ strict: false })
    addFormats.default(ajv)
    return ajv.compile(JSON.parse(configJsonSchema()) as object)
  }

  it('accepts the test example, as the mock does', () => {
    const validate = compiled()
    expect(validate(EXAMPLE), JSON.stringify(validate.errors)).toBe(true)
  })

  it('refuses a typo or a bad value, as the mock does', () => {
    const validate = compiled()
    expect(validate({ ...EXAMPLE, prot: 1 })).toBe(false)
    expect(validate({ ...EXAMPLE, log: 'loud' })).toBe(false)
  })
})

/** A file of three problems: a bad number, a bad word in a nested object, an unknown key. */
const THREE_PROBLEMS = { port: 'abc', keys: [{ key: 'qa', plan: 'gold' }], prot: 4010 }
const threeLines = (file: string) => [
  `${file}: port: must be a whole number from 0 to 65535, got "abc".`,
  `${file}: keys[0].plan: must be "free", "pro", "business" or "enterprise", got "gold".`,
  `${file}: prot: is not a key of the config file. Did you mean port?`,
]

describe('petstore-mock config validate FILE', () => {
  it('says a valid file is valid, exit 0', async () => {
    const file = await write({ port: 0, seed: 7, keys: [{ key: 'qa', plan: 'pro' }], stateFile: './state/petstore.json' })
    expect(await runCli(['config', 'validate', file])).toEqual({ code: 0, stdout: `${file} is valid\n`, stderr: '' })
  })

  it('prints each problem of an invalid file as one line FILE: key: message, exit 2', async () => {
    const file = await write(THREE_PROBLEMS)
    const { code, stdout, stderr } = await runCli(['config', 'validate', file])
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' })
    expect(stderr).toBe(`${threeLines(file).join('\n')}\n`)
  })

  it('prints the same lines for petstore-mock verify --config, before it sends anything', async () => {
    const file = await write(THREE_PROBLEMS)
    const { code, stdout, stderr } = await runCli([
      'verify',
      '--target',
      'http://127.0.0.1:9/v1',
      '--key',
      'secret-verify-key',
      '--config',
      file,
    ])
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' })
    expect(stderr).toBe(
      `${threeLines(file)
        .map((line) => `petstore-mock verify: ${line}`)
        .join('\n')}\n`,
    )
  })

  it('names the key inside a list and a union, and what the value must be', async () => {
    const file = await write({ pets: [{ id: 1, name: 7, categoryId: 1 }], latency: { min: 'a', max: 5 }, redis: 'x' })
    const { code, stderr } = await runCli(['config', 'validate', file])
    expect(code).toBe(2)
    expect(stderr.split('\n').filter(Boolean)).toEqual([
      `${file}: pets[0].name: must be text, got 7.`,
      `${file}: latency.min: must be a whole number of 0 or more, got "a".`,
      `${file}: redis: must be a Redis URL such as redis://127.0.0.1:6379.`,
    ])
  })

  it('says in one line that a missing file cannot be read, exit 2', async () => {
    const file = join(dir, 'missing.json')
    expect(await runCli(['config', 'validate', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `${file}: Cannot read the config file: there is no file ${file}. Give the path of a JSON file of options.\n`,
    })
  })

  it('says in one line that a file is not JSON, exit 2', async () => {
    const file = await write('{"port": 4010,')
    const { code, stderr } = await runCli(['config', 'validate', file])
    expect(code).toBe(2)
    expect(stderr).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}: is not valid JSON: [^\\n]+\\n$`))
  })

  it('checks the folders the file names, as the server does', async () => {
    const file = await write({ scenarios: './no-such-folder' })
    const { code, stderr } = await runCli(['config', 'validate', file])
    expect(code).toBe(2)
    expect(stderr).toMatch(/^\S+petstore-mock\.json: scenarios: Cannot read the scenarios folder \S+no-such-folder/)
  })

  it('gives its --help through the shared parser', async () => {
    const { code, stdout, stderr } = await runCli(['config', 'validate', '--help'])
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(stdout).toContain('Usage: petstore-mock config validate FILE')
    expect(stdout).toMatch(/^ {2}-h, --help +Show this help$/m)
  })

  it.each([
    [['config', 'validate'], 'petstore-mock config: needs FILE, as in petstore-mock config validate FILE.'],
    [['config'], 'petstore-mock config: needs validate FILE, as in petstore-mock config validate FILE.'],
    [['config', 'check', 'x.json'], 'petstore-mock config: knows one action, validate, as in petstore-mock config validate FILE.'],
  ])('refuses %j with exit 2 and one line', async (args, start) => {
    const { code, stdout, stderr } = await runCli(args)
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' })
    expect(stderr.startsWith(start)).toBe(true)
    expect(stderr.trim().split('\n')).toHaveLength(1)
  })
})

describe('the server with --config', () => {
  it('refuses the same file with the same lines, each naming the file and the key, exit 2', async () => {
    const file = await write(THREE_PROBLEMS)
    expect(await runCli(['--config', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `${threeLines(file)
        .map((line) => `petstore-mock: ${line}`)
        .join('\n')}\n`,
    })
  })

  it('names the config file and the key of a value that goes with no other', async () => {
    const file = await write({ redis: 'redis://127.0.0.1:9', stateFile: 'state.json' })
    const { code, stderr } = await runCli(['--config', file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}: redis and ${file}: stateFile cannot go together`)
  })

  it('names the config file and the key of an unknown scenario', async () => {
    const file = await write({ port: 0, scenario: 'flakey' })
    const { code, stderr } = await runCli(['--config', file])
    expect(code).toBe(2)
    expect(stderr).toMatch(
      new RegExp(`^petstore-mock: ${file.replace(/[.]/g, '\\.')}: scenario: Unknown scenario "flakey".*Did you mean "flaky"\\?`),
    )
  })
})
