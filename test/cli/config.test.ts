/**
 * `--config FILE` (README, "A config file"): every option in one JSON file, flags > environment > file > defaults,
 * errors that name their source, the file's JSON Schema shipped and current, and the same file loaded in-process.
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
    expect(broken.stderr).toMatch(/broken\.json is not valid JSON/)
  })

  it('names the source of a bad value: the flag, the environment variable or the file', async () => {
    expect((await runCli(['--port', 'x'])).stderr).toContain('--port must be a whole number')
    expect((await runCli([], { PETSTORE_PORT: 'x' })).stderr).toContain('PETSTORE_PORT must be a whole number')
    const file = await write({ port: 'x' })
    const fromFile = await runCli(['--config', file])
    expect(fromFile.stderr).toContain(`${file}: port:`)
    expect((await runCli([], { PETSTORE_CONFIG: join(dir, 'missing.json') })).stderr).toContain(
      'PETSTORE_CONFIG: Cannot read the config file',
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

  it('accepts the example of the README section "A config file"', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('### A config file'))
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
