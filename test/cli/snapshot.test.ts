/**
 * `petstore-mock snapshot` (docs/snapshot.md): a running mock is the deployment to read; the file written must
 * start a second mock that serves the same pets byte for byte, ids beyond 2^53 included.
 */

import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createPetStoreServer, type PetStoreServer } from '../../src/server/http-server.js'
import { readStateFile } from '../../src/server/state/file.js'
import { parseSnapshot, type WorldSnapshot } from '../../src/snapshot.js'
import { auth, closeServers, ensureBuilt, INT64_MAX, runCli, startServer } from '../http/support.js'

const KEY = 'staging-secret-key-0042'
const STATUSES = ['available', 'pending', 'sold', undefined] as const
const EXACT = { id: BigInt(INT64_MAX) - 1n, name: 'Exact', categoryId: BigInt(INT64_MAX), status: 'pending' as const }

let dir = ''
let fakes: Server[] = []

beforeAll(ensureBuilt)
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-snapshot-'))
})
afterEach(async () => {
  await closeServers()
  await Promise.all(fakes.map((fake) => new Promise((done) => fake.close(done))))
  fakes = []
  await rm(dir, { recursive: true, force: true })
})

/** The deployment to read: 250 generated pets plus one whose id and categoryId lie beyond 2^53, and a key with room. */
async function startTarget(): Promise<PetStoreServer> {
  const server = createPetStoreServer({
    host: '127.0.0.1',
    port: 0,
    log: 'silent',
    pets: 250,
    seed: 3,
    keys: [{ key: KEY, plan: 'enterprise', limits: { perMinute: 100_000, perDay: 10_000_000 } }],
  })
  await server.listen()
  const state = server.petStore.snapshot()
  await server.petStore.restore({ ...state, pets: [...state.pets, EXACT], nextId: BigInt(INT64_MAX) })
  return server
}

const listing = (url: string, key: string, status?: string) =>
  fetch(`${url}/v1/pets?limit=100${status ? `&status=${status}` : ''}`, { headers: auth(key) }).then((r) => r.text())
const getPet = (url: string, key: string, id: bigint) => fetch(`${url}/v1/pets/${id}`, { headers: auth(key) }).then((r) => r.text())

async function readWritten(file: string): Promise<WorldSnapshot> {
  const world = (await readStateFile(file))?.sessions.get('default')
  if (!world) throw new Error(`${file} holds no default session.`)
  return world
}

/**
 * A stand-in deployment that answers the n-th request (from 0) as `answer` says. Like a real deployment, it holds the
 * client to the wait it last asked for (`notBefore`, a time on this machine's clock) and records each request that came
 * before it in `early`: the order of events, not a measured duration.
 */
async function startFake(
  answer: (n: number, request: IncomingMessage) => { status: number; headers?: Record<string, string>; body: string; notBefore?: number },
) {
  const arrivals: number[] = []
  const early: number[] = []
  let notBefore = 0
  const fake = createServer((request, response) => {
    const n = arrivals.length
    arrivals.push(n)
    if (Date.now() < notBefore) early.push(n)
    const { status, headers = {}, body, notBefore: next } = answer(n, request)
    if (next !== undefined) notBefore = next
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body)
  })
  fakes.push(fake)
  await new Promise<void>((done) => fake.listen(0, '127.0.0.1', done))
  const { port } = fake.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/v1`, arrivals, early }
}

type Run = Awaited<ReturnType<typeof runCli>>

describe('petstore-mock snapshot of a mock with 251 pets', () => {
  let target: PetStoreServer
  let out = ''
  const files = { state: '', world: '', small: '' }
  const runs: Record<keyof typeof files, Run> = {} as Record<keyof typeof files, Run>

  // One target and three runs side by side (state file, --format world, --max 10), shared by the tests below.
  beforeAll(async () => {
    target = await startTarget()
    out = await mkdtemp(join(tmpdir(), 'petstore-snapshot-'))
    Object.assign(files, { state: join(out, 'staging.json'), world: join(out, 'world.json'), small: join(out, 'small.json') })
    const base = ['snapshot', '--target', `${target.url}/v1`]
    ;[runs.state, runs.world, runs.small] = await Promise.all([
      runCli([...base, '--key', KEY, '--out', files.state]),
      runCli([...base, '--out', files.world, '--format', 'world'], { PETSTORE_SNAPSHOT_KEY: KEY }),
      runCli([...base, '--key', KEY, '--out', files.small, '--max', '10']),
    ])
  })
  afterAll(async () => {
    await target?.close()
    await rm(out, { recursive: true, force: true })
  })

  it('exits 0 from each of the three runs', () => {
    for (const run of Object.values(runs)) expect(run.code, run.stderr).toBe(0)
  })

  it('never prints the key', () => {
    for (const run of Object.values(runs)) expect(run.stdout + run.stderr).not.toContain(KEY)
  })

  it('reports each listing it reads on stderr', () => {
    expect(runs.state.stderr).toContain('reading status=sold… ')
  })

  it('writes a state file from which a second mock serves the same pets, byte for byte', async () => {
    const world = await readWritten(files.state)
    expect(world.pets).toContainEqual(EXACT)
    expect(world.nextId).toBe(BigInt(INT64_MAX))
    const { url: copy } = await startServer({ stateFile: files.state })
    for (const status of STATUSES) expect(await listing(copy, 'test-pro', status)).toBe(await listing(target.url, KEY, status))
    for (let i = 0; i < world.pets.length; i += 50) {
      const ids = world.pets.slice(i, i + 50).map((pet) => pet.id)
      const [mine, theirs] = await Promise.all([
        Promise.all(ids.map((id) => getPet(copy, 'test-pro', id))),
        Promise.all(ids.map((id) => getPet(target.url, KEY, id))),
      ])
      expect(mine).toEqual(theirs)
    }
    expect(await getPet(copy, 'test-pro', EXACT.id)).toBe(`{"id":${EXACT.id},"name":"Exact","categoryId":${INT64_MAX},"status":"pending"}`)
  })

  it('reads at most 100 pets per listing', async () => {
    const counts = [...runs.state.stderr.matchAll(/reading [^…]+… (\d+) pets/g)].map((match) => Number(match[1]))
    expect(counts).toHaveLength(4)
    expect(Math.max(...counts)).toBe(100)
    // 251 pets, but a full listing hides those past its 100th.
    expect((await readWritten(files.state)).pets.length).toBeLessThan(251)
  })

  it('warns when a listing comes back full', () => {
    expect(runs.state.stderr).toMatch(/at most 100 pets per status, ~400 in all/)
    expect(runs.state.stderr).toContain("came back with 100 pets, the API's page maximum")
  })

  it('writes with --format world the body PUT /__mock/state takes', async () => {
    const text = await readFile(files.world, 'utf8')
    expect(parseSnapshot(text).ok).toBe(true)
    const { url: copy } = await startServer({ pets: 0 })
    const put = await fetch(`${copy}/__mock/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text })
    expect(put.status).toBe(204)
    expect(await listing(copy, 'test-pro', 'pending')).toBe(await listing(target.url, KEY, 'pending'))
  })

  it('writes only the pets with the N lowest ids with --max N', async () => {
    const world = await readWritten(files.small)
    expect(world.pets.map((pet) => pet.id)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n])
    expect(world.nextId).toBe(BigInt(INT64_MAX))
    expect(runs.small.stderr).toMatch(/wrote 10 pets, the 10 lowest ids of \d+ read \(--max\)/)
  })

  /** Runs a snapshot of the target with a key it does not know, writing to `file`. */
  const withWrongKey = async () => {
    const file = join(dir, 'staging.json')
    const run = await runCli(['snapshot', '--target', `${target.url}/v1`, '--key', 'wrong-key-5678', '--out', file])
    return { file, run }
  }

  it('exits 1 naming the status when the target answers 401', async () => {
    const { run } = await withWrongKey()
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/the target answered 401 \(unauthorized/)
    expect(run.stderr).toContain('Check --key')
    expect(run.stderr).not.toContain('wrong-key-5678')
  })

  it('writes nothing when the target answers 401', async () => {
    const { file } = await withWrongKey()
    expect(await stat(file).catch(() => undefined)).toBeUndefined()
  })
})

describe('petstore-mock snapshot against other targets', () => {
  it('exits 1 naming the status when the target answers 503', async () => {
    const { url } = await startFake(() => ({ status: 503, body: '{"code":"service_unavailable","message":"Down.","status":503}' }))
    const run = await runCli(['snapshot', '--target', url, '--key', KEY, '--out', join(dir, 'x.json')])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('the target answered 503 (service_unavailable: Down)')
  })

  it('exits 2 naming the URL when the target cannot be reached', async () => {
    const probe = createNetServer()
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done))
    const { port } = probe.address() as { port: number }
    await new Promise((done) => probe.close(done))
    const run = await runCli(['snapshot', '--target', `http://127.0.0.1:${port}/v1`, '--key', KEY, '--out', join(dir, 'x.json')])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`cannot reach http://127.0.0.1:${port}/v1/pets`)
  })

  describe('that ask it to wait', () => {
    const pets = '[{"id":9007199254740993,"name":"Big","categoryId":1,"status":"sold"}]'
    const served = { status: 200, headers: { 'x-ratelimit-remaining': '5' }, body: pets }

    /** Snapshots a fake that answers its first request with `first`, every later one with one pet. */
    const snapshotOf = async (first: () => ReturnType<Parameters<typeof startFake>[0]>) => {
      const fake = await startFake((n) => (n === 0 ? first() : served))
      const file = join(dir, 'fake.json')
      const run = await runCli(['snapshot', '--target', fake.url, '--key', KEY, '--out', file])
      return { ...fake, file, run }
    }

    it('waits for the rate-limit window to reset before its next request', async () => {
      const { run, arrivals, early, file } = await snapshotOf(() => {
        const resetAt = Math.ceil(Date.now() / 1000) + 1
        const headers = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetAt) }
        return { status: 200, headers, body: '[]', notBefore: resetAt * 1000 }
      })
      expect(run.code, run.stderr).toBe(0)
      expect(arrivals).toHaveLength(4)
      expect(early, 'requests sent before X-RateLimit-Reset').toEqual([])
      expect(run.stderr).toMatch(/waiting \d s: the target says no request is left .*X-RateLimit-Reset/)
      expect((await readWritten(file)).pets).toEqual([{ id: 9007199254740993n, name: 'Big', categoryId: 1n, status: 'sold' }])
    })

    it('waits out Retry-After before sending a refused request again', async () => {
      const { run, arrivals, early, file } = await snapshotOf(() => ({
        status: 429,
        headers: { 'retry-after': '1' },
        body: '{"code":"rate_limited","message":"Slow down.","status":429}',
        notBefore: Date.now() + 1000,
      }))
      expect(run.code, run.stderr).toBe(0)
      expect(arrivals).toHaveLength(5)
      expect(early, 'requests sent before Retry-After had passed').toEqual([])
      expect(run.stderr).toMatch(/waiting \d s: the target answered 429 \(rate_limited\) with Retry-After: 1/)
      expect((await readWritten(file)).pets).toEqual([{ id: 9007199254740993n, name: 'Big', categoryId: 1n, status: 'sold' }])
    })
  })

  it('refuses an --out whose change log or log segments a running or crashed server left, naming them', async () => {
    const file = join(dir, 'busy.json')
    await writeFile(`${file}.log.7`, '{"seq":7,"session":"default","create":{"id":51,"name":"Rex","categoryId":1}}\n')
    const run = await runCli(['snapshot', '--target', 'http://127.0.0.1:1/v1', '--key', KEY, '--out', file])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`has a change log ${file}.log.7`)
    expect(run.stderr).toContain('Stop that server and delete it, or pick another --out.')
  })

  it('exits 2 naming the fix for a usage error', async () => {
    const missing = await runCli(['snapshot', '--target', 'http://127.0.0.1:1/v1', '--key', KEY])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('petstore-mock snapshot: --out FILE is required')
    const notV1 = await runCli(['snapshot', '--target', 'http://127.0.0.1:1/', '--key', KEY, '--out', join(dir, 'x.json')])
    expect(notV1.code).toBe(2)
    expect(notV1.stderr).toContain('ending with /v1')
  })

  it('lists every option in --help', async () => {
    const help = await runCli(['snapshot', '--help'])
    expect(help.code).toBe(0)
    for (const option of ['--target', '--key', '--out', '--format', '--max', '--max-wait', '--help']) expect(help.stdout).toContain(option)
    expect(help.stdout).toContain('petstore-mock snapshot --target https://staging.example.com/v1')
  })
})
