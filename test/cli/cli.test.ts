import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SERVE } from '../../src/cli/options.js'
import { envName } from '../../src/cli/parse.js'
import { createPetStore } from '../../src/index.js'
import { auth, closeServers, ensureBuilt, eventually, FIXTURES, killClis, runCli, startCli, startServer } from '../http/support.js'

beforeAll(ensureBuilt)
afterEach(killClis)
afterAll(closeServers)

/** The options the issue asks for, each with its environment variable. */
const EXPECTED_OPTIONS = [
  ['port', 'PETSTORE_PORT'],
  ['host', 'PETSTORE_HOST'],
  ['seed', 'PETSTORE_SEED'],
  ['pets', 'PETSTORE_PETS'],
  ['state-file', 'PETSTORE_STATE_FILE'],
  ['latency', 'PETSTORE_LATENCY'],
  ['cors-origin', 'PETSTORE_CORS_ORIGIN'],
  ['admin-token', 'PETSTORE_ADMIN_TOKEN'],
  ['handlers', 'PETSTORE_HANDLERS'],
  ['log', 'PETSTORE_LOG'],
  ['max-sessions', 'PETSTORE_MAX_SESSIONS'],
  ['scenario', 'PETSTORE_SCENARIO'],
  ['scenarios', 'PETSTORE_SCENARIOS'],
  ['fixtures', 'PETSTORE_FIXTURES'],
  ['fsync', 'PETSTORE_FSYNC'],
  ['journal-max-bytes', 'PETSTORE_JOURNAL_MAX_BYTES'],
  ['clock-speed', 'PETSTORE_CLOCK_SPEED'],
  ['explain', 'PETSTORE_EXPLAIN'],
  ['media-type-status', 'PETSTORE_MEDIA_TYPE_STATUS'],
  ['redis', 'PETSTORE_REDIS'],
]

/** The `[name, env]` pairs of the server's table of options (src/cli/options.ts), the variable named by the one rule. */
const declaredOptions = () => Object.keys(SERVE.options).map((name) => [name, envName(SERVE, name)])

const listPets = (url: string, query = 'limit=100') => fetch(`${url}/v1/pets?${query}`, { headers: auth('test-pro') })

describe('usage', () => {
  it('declares every option of the issue, each with its environment variable', () => {
    expect(declaredOptions()).toEqual(expect.arrayContaining(EXPECTED_OPTIONS))
  })

  it('gives the node flags for a load test on one core for --help (decision 021)', async () => {
    const { stdout } = await runCli(['--help'])
    expect(stdout).toMatch(/^ {2}node --max-semi-space-size=16 --single-threaded-gc .*\/dist\/src\/cli\/main\.js/m)
  })

  it('refuses an unknown option with exit code 2, naming it', async () => {
    const { code, stdout, stderr } = await runCli(['--bogus'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('--bogus')
    expect(stderr).toContain('--help')
  })

  it('refuses a positional argument with exit code 2', async () => {
    const { code, stderr } = await runCli(['4010'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/^petstore-mock: /)
  })

  it.each([
    ['--port', 'abc'],
    ['--port', '70000'],
    ['--log', 'loud'],
    ['--latency', '5-1'],
    ['--latency', 'fast'],
    ['--seed', 'x7'],
    ['--seed', '2147483648'],
    ['--pets', '1.5'],
    ['--max-sessions', '0'],
    ['--cors-origin', 'http://localhost:5173/app'],
    ['--clock-speed', '0'],
    ['--clock-speed', 'fast'],
    ['--clock-speed', '100000'],
  ])('refuses %s %s with exit code 2 and a message naming the option', async (flag, value) => {
    const { code, stdout, stderr } = await runCli([flag, value], { PETSTORE_PORT: '0' })
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain(flag)
    expect(stderr).toContain(value)
  })

  it('refuses a bad value from the environment with exit code 2, naming the variable', async () => {
    const { code, stderr } = await runCli([], { PETSTORE_PORT: '0', PETSTORE_LOG: 'loud' })
    expect(code).toBe(2)
    expect(stderr).toContain('PETSTORE_LOG must be pretty, json or silent')
  })

  it('exits 1 naming --port when the port is in use', async () => {
    const { url } = await startServer()
    const port = new URL(url).port
    const { code, stderr } = await runCli(['--port', port])
    expect(code).toBe(1)
    expect(stderr).toContain(port)
    expect(stderr).toContain('--port')
  })
})

describe('start-up', () => {
  it('prints a banner naming the base URL, each test key with its plan, the admin URL', async () => {
    const cli = await startCli(['--port', '0', '--log', 'silent'])
    const banner = cli.stdout()
    expect(cli.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(banner.split('\n')[0]).toMatch(new RegExp(`listening on ${cli.url}/v1$`))
    for (const [key, plan] of [
      ['test-free', 'Free'],
      ['test-pro', 'Pro'],
      ['test-business', 'Business'],
      ['test-enterprise', 'Enterprise'],
    ] as const) {
      expect(banner).toMatch(new RegExp(`${key}\\s+${plan}\\b`))
    }
    expect(banner).toContain(`${cli.url}/__mock`)
  })

  it('serves with node:http alone: no fetch implementation (undici) loaded by its start', async () => {
    // Node 22 and later load undici for an ES import of node:http (src/server/http-server.ts says why it matters).
    const probe = "process.on('exit', () => process.stderr.write('undici: ' + process.moduleLoadList.some((m) => m.includes('undici'))))"
    const preload = ['--import', `data:text/javascript,${encodeURIComponent(probe)}`]
    const cli = await startCli(['--port', '0', '--log', 'silent'], {}, [process.execPath, ...preload])
    expect((await fetch(`${cli.url}/v1/pets/1`, { headers: auth('test-pro') })).status).toBe(200)
    cli.child.kill('SIGTERM')
    await cli.exited
    expect(cli.stderr()).toContain('undici: false')
  })

  it("names the clock's state and speed, and how to run a frozen one", async () => {
    const real = await startCli(['--port', '0', '--log', 'silent'])
    expect(real.stdout()).toMatch(/^ {2}Clock: real time\.$/m)
    const fast = await startCli(['--port', '0', '--log', 'silent', '--clock-speed', '60'])
    expect(fast.stdout()).toMatch(/^ {2}Clock: running at 60x real time, now \d{4}-\d\d-\d\dT[\d:.]+Z\.$/m)
    // A timeline scenario starts its clock frozen at its own start: --clock-speed applies once it runs.
    const frozen = await startCli(['--port', '0', '--log', 'silent', '--clock-speed', '60', '--scenario', 'slow-day'])
    const line = frozen
      .stdout()
      .split('\n')
      .find((text) => text.startsWith('  Clock:'))
    expect(line).toBe(
      `  Clock: frozen at 2026-06-01T08:00:00.000Z (the scenario's start); it runs at 60x once started: curl -X POST -d '{"set":"2026-06-01T08:00:00.000Z","running":true}' ${frozen.url}/__mock/clock`,
    )
  })

  it('serves the API at the URLs its banner names', async () => {
    const cli = await startCli(['--port', '0', '--log', 'silent'])
    expect((await listPets(cli.url)).status).toBe(200)
    expect((await fetch(`${cli.url}/__mock/health`)).status).toBe(200)
  })

  it('reads its options from the environment', async () => {
    const cli = await startCli([], { PETSTORE_PORT: '0', PETSTORE_SEED: '7', PETSTORE_PETS: '3', PETSTORE_LOG: 'silent' })
    const expected = await createPetStore({ seed: 7, pets: 3 }).fetch('/v1/pets?limit=100', { headers: auth('test-pro') })
    expect(await (await listPets(cli.url)).text()).toBe(await expected.text())
  })

  /** The CLI started with an admin token and a CORS origin from the environment. */
  const startWithTokenAndOrigin = () =>
    startCli([], {
      PETSTORE_PORT: '0',
      PETSTORE_ADMIN_TOKEN: 'env-token',
      PETSTORE_CORS_ORIGIN: 'http://localhost:5173',
      PETSTORE_LOG: 'silent',
    })

  it('reads the admin token from PETSTORE_ADMIN_TOKEN', async () => {
    const cli = await startWithTokenAndOrigin()
    expect((await fetch(`${cli.url}/__mock/clock`)).status).toBe(401)
    expect((await fetch(`${cli.url}/__mock/clock`, { headers: auth('env-token') })).status).toBe(200)
  })

  it('reads the CORS origins from PETSTORE_CORS_ORIGIN', async () => {
    const cli = await startWithTokenAndOrigin()
    const other = await fetch(`${cli.url}/v1/pets`, { headers: auth('test-pro', { origin: 'https://evil.example' }) })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    const allowed = await fetch(`${cli.url}/v1/pets`, { headers: auth('test-pro', { origin: 'http://localhost:5173' }) })
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
  })

  it('lets a flag win over its environment variable', async () => {
    const cli = await startCli(['--pets', '2', '--port', '0'], { PETSTORE_PETS: '3', PETSTORE_PORT: '1', PETSTORE_LOG: 'silent' })
    expect(await (await listPets(cli.url)).json()).toHaveLength(2)
  })

  it('delays responses by --latency', async () => {
    const cli = await startCli(['--port', '0', '--latency', '150', '--log', 'json'])
    const before = cli.stdout().length
    expect((await listPets(cli.url)).status).toBe(200)
    // The server's own account of the exchange, from the request's arrival to its answer (test/http/server.test.ts
    // pins the latency itself). Its ms are read a little after the moment the latency's timer counts from, so the
    // bound leaves room for that; an answer without the latency takes a few ms.
    const line = await eventually(async () => cli.stdout().slice(before).split('\n')[0] || undefined)
    expect(JSON.parse(line)).toMatchObject({ path: '/v1/pets?limit=100', status: 200 })
    expect((JSON.parse(line) as { ms: number }).ms).toBeGreaterThanOrEqual(100)
  })
})

describe('--clock-speed', () => {
  it('runs the clock that many times real time: with 3600 an hour passes each real second', { retry: 2 }, async () => {
    const cli = await startCli(['--port', '0', '--log', 'silent', '--clock-speed', '3600'])
    const read = async () => Date.parse(((await (await fetch(`${cli.url}/__mock/clock`)).json()) as { now: string }).now)
    const [before, realBefore] = [await read(), Date.now()]
    await new Promise((resolve) => setTimeout(resolve, 200))
    const [after, realAfter] = [await read(), Date.now()]
    // At least 0.2 real s * 3600 = 12 virtual min between the reads; a busy machine only makes it more. At most the
    // real time between the two reads' ends, times the speed, plus one read's worth.
    expect(after - before).toBeGreaterThanOrEqual(200 * 3600 * 0.9)
    expect(after - before).toBeLessThanOrEqual((realAfter - realBefore + 1_000) * 3600)
  })
})

/** Node's own command line of a running process (Linux). */
const commandLine = async (pid: number | undefined) => (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')

/** Decision 021: the server runs in the node it was started in, with the flags the operator gave it and none of its own. */
describe('on one CPU (taskset -c 0)', () => {
  const onOneCpu = (nodeFlags: readonly string[] = []) =>
    startCli(['--port', '0', '--log', 'silent'], {}, ['taskset', '-c', '0', process.execPath, ...nodeFlags])

  it('serves under taskset -c 0', async () => {
    const cli = await onOneCpu()
    expect((await listPets(cli.url)).status).toBe(200)
  })

  it('adds no V8 flag to the node it was started in, nor a line about the collector to its banner', async () => {
    const cli = await onOneCpu()
    const args = await commandLine(cli.child.pid)
    expect(args.filter((arg) => arg.startsWith('--'))).toEqual(['--port', '--log'])
    expect(cli.stdout()).not.toContain('GC:')
  })

  it('serves with the node flags of the one-core recipe, kept as given', async () => {
    const cli = await onOneCpu(['--max-semi-space-size=16', '--single-threaded-gc'])
    expect(await commandLine(cli.child.pid)).toEqual(expect.arrayContaining(['--max-semi-space-size=16', '--single-threaded-gc']))
    expect((await listPets(cli.url)).status).toBe(200)
  })

  it('exits 0 on SIGTERM under taskset -c 0', async () => {
    const cli = await onOneCpu()
    cli.child.kill('SIGTERM')
    expect(await cli.exited).toEqual({ code: 0, signal: null })
  })
})

describe('request log', () => {
  it('prints one JSON line per request with --log json, without the Authorization value', async () => {
    const cli = await startCli(['--port', '0', '--log', 'json'])
    const before = cli.stdout().length
    await listPets(cli.url, 'limit=1')
    await fetch(`${cli.url}/v1/pets`, { headers: auth('secret-key-value') })
    const lines = await eventually(async () => {
      const lines = cli.stdout().slice(before).trim().split('\n').filter(Boolean)
      return lines.length >= 2 ? lines : undefined
    })
    expect(lines).toHaveLength(2)
    const [ok, denied] = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(ok).toMatchObject({ method: 'GET', path: '/v1/pets?limit=1', status: 200, plan: 'pro', ms: expect.any(Number) })
    expect(denied).toMatchObject({ method: 'GET', path: '/v1/pets', status: 401 })
    const log = cli.stdout().slice(before)
    expect(log).not.toContain('test-pro')
    expect(log).not.toContain('secret-key-value')
  })

  it('prints a pretty line per request by default, without the Authorization value', async () => {
    const cli = await startCli(['--port', '0'])
    const before = cli.stdout().length
    await listPets(cli.url, 'limit=1')
    const line = await eventually(async () => cli.stdout().slice(before).split('\n')[0] || undefined)
    expect(line).toMatch(/^GET \/v1\/pets\?limit=1 200 pro [\d.]+ms$/)
    expect(cli.stdout().slice(before)).not.toContain('test-pro')
  })
})

describe('shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 on %s', async (signal) => {
    const cli = await startCli(['--port', '0', '--log', 'silent'])
    expect((await fetch(`${cli.url}/__mock/health`)).status).toBe(200)
    cli.child.kill(signal)
    expect(await cli.exited).toEqual({ code: 0, signal: null })
    await expect(fetch(`${cli.url}/v1/pets`)).rejects.toThrow(TypeError)
  })

  it('exits 0 on a SIGTERM sent as soon as the banner is printed', async () => {
    // A process manager may signal the moment the server says it listens: the handlers must be in place by then.
    for (let round = 0; round < 4; round++) {
      const cli = await startCli(['--port', '0', '--log', 'silent'])
      cli.child.kill('SIGTERM')
      expect(await cli.exited, `round ${round + 1}`).toEqual({ code: 0, signal: null })
    }
  })

  it('finishes an in-flight request on SIGTERM before exiting 0', async () => {
    const cli = await startCli(['--port', '0', '--log', 'silent', '--latency', '1000'])
    const inFlight = listPets(cli.url, 'limit=3')
    // In flight once the journal has it: the mock has answered it and holds the answer for --latency.
    await eventually(async () => {
      const entries = (await (await fetch(`${cli.url}/__mock/requests`)).json()) as { query: string }[]
      return entries.some((entry) => entry.query === 'limit=3') ? true : undefined
    })
    cli.child.kill('SIGTERM')
    const response = await inFlight
    expect(response.status).toBe(200)
    expect(await response.json()).toHaveLength(3)
    expect(await cli.exited).toEqual({ code: 0, signal: null })
  })
})

describe('--handlers', () => {
  it('serves the routes of the user module in front of the built-in ones', async () => {
    const cli = await startCli(['--port', '0', '--log', 'silent', '--handlers', join(FIXTURES, 'orders-handlers.mjs')])
    expect(cli.stdout()).toContain('1 user handlers')
    const orders = await fetch(`${cli.url}/v1/store/orders`, { headers: auth('test-pro') })
    expect(orders.status).toBe(200)
    expect(await orders.json()).toEqual([{ id: 1, petId: 7, status: 'placed' }])
    expect(await (await listPets(cli.url)).json()).toHaveLength(50)
  })

  it('takes the module path relative to the working directory, also from PETSTORE_HANDLERS', async () => {
    const cli = await startCli([], {
      PETSTORE_PORT: '0',
      PETSTORE_LOG: 'silent',
      PETSTORE_HANDLERS: 'test/http/fixtures/orders-handlers.mjs',
    })
    expect((await fetch(`${cli.url}/v1/store/orders`)).status).toBe(200)
  })

  it('refuses a module exporting no handlers with exit code 2, saying so', async () => {
    const { code, stdout, stderr } = await runCli(['--port', '0', '--handlers', join(FIXTURES, 'no-handlers.mjs')])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('no-handlers.mjs')
    expect(stderr).toContain('exports no msw handlers')
  })

  it('refuses a missing module with exit code 2 naming it', async () => {
    const { code, stderr } = await runCli(['--port', '0', '--handlers', join(FIXTURES, 'missing.mjs')])
    expect(code).toBe(2)
    expect(stderr).toContain('missing.mjs')
  })
})
