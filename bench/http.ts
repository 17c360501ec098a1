/**
 * Target 1 (issue #8): the standalone server against the limit (bare node:http doing the same work)
 * and warmed-up WireMock serving stubs of the same responses, over 10,000 pets, with auth, rate
 * limiting and the journal on. One core for the server, one for wrk; medians of rounds.
 * Target 5: start-up to the first 200 against Prism.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openApiDocument } from '../src/openapi.js'
import {
  BENCH_KEY,
  median,
  quick,
  ROOT,
  rounds,
  SERVER_CORE,
  SERVER_NODE,
  startMock,
  startPinned,
  table,
  tempDir,
  verdict,
  waitFor,
  wrk,
} from './lib.js'

const PETS = 10_000
const SECONDS = quick ? 3 : 10
const ROUNDS = quick ? 1 : 3
const WARMUP_SECONDS = quick ? 10 : 60
const auth = { Authorization: `Bearer ${BENCH_KEY}` }
const post = join(ROOT, 'bench/servers/post.lua')

export interface Target {
  name: string
  base: string
  /** Prism serves the document's paths without the server's base path (`/v1`). */
  withoutBasePath?: boolean
  /** The headers of its load, if not the bench key's `Authorization`. */
  headers?: Record<string, string>
  /** The error code every answer to its load carries (`rate_limited`): those 429s are what is measured, not errors. */
  refusal?: string
  start(): Promise<() => Promise<void>>
}

/** Prism serving the mock's own OpenAPI document (static examples), the other peer. */
export function prism(port: number): Target {
  const spec = join(tempDir('prism-'), 'openapi.json')
  writeFileSync(spec, JSON.stringify(openApiDocument({ serverUrl: `http://127.0.0.1:${port}/v1` })))
  return {
    name: 'Prism 5.14 mock',
    base: `http://127.0.0.1:${port}`,
    withoutBasePath: true,
    async start() {
      const proc = startPinned(SERVER_CORE, join(ROOT, 'node_modules/.bin/prism'), [
        'mock',
        spec,
        '-p',
        String(port),
        '-h',
        '127.0.0.1',
        '--errors',
        'false',
      ])
      await waitFor(`http://127.0.0.1:${port}/pets?limit=1`, { headers: auth })
      return proc.stop
    },
  }
}

export const ops = [
  { name: 'GET /v1/pets?limit=20', path: '/v1/pets?limit=20' },
  { name: 'GET /v1/pets/{id}', path: '/v1/pets/5000' },
  { name: 'POST /v1/pets', path: '/v1/pets', script: post },
] as const

export function ours(port: number): Target {
  return {
    name: 'petstore-mock',
    base: `http://127.0.0.1:${port}`,
    async start() {
      const proc = startMock(port, ['--pets', String(PETS)])
      await waitFor(`http://127.0.0.1:${port}/v1/pets?limit=1`, { headers: auth })
      return proc.stop
    },
  }
}

function bare(port: number): Target {
  return {
    name: 'bare node:http (limit)',
    base: `http://127.0.0.1:${port}`,
    async start() {
      const proc = startPinned(SERVER_CORE, SERVER_NODE, [join(ROOT, 'bench/servers/bare.mjs'), String(port), String(PETS)])
      await waitFor(`http://127.0.0.1:${port}/v1/pets?limit=1`, { headers: auth })
      return proc.stop
    },
  }
}

/** WireMock with stubs of the mock's own answers, warmed up before measuring. */
export async function wiremock(port: number, reference: string): Promise<Target> {
  const dir = tempDir('wiremock-')
  mkdirSync(join(dir, 'mappings'))
  const answers: Record<string, string> = {}
  for (const op of ops) {
    const response = await fetch(`${reference}${op.path}`, {
      method: op.name.startsWith('POST') ? 'POST' : 'GET',
      headers: { ...auth, 'content-type': 'application/json' },
      ...(op.name.startsWith('POST') ? { body: '{"name":"Rex","categoryId":3,"status":"available"}' } : {}),
    })
    answers[op.name] = await response.text()
  }
  const headers = {
    'Content-Type': 'application/json',
    'X-RateLimit-Limit': '1000000',
    'X-RateLimit-Remaining': '999999',
    'X-RateLimit-Reset': '1790000000',
  }
  const mappings = [
    {
      request: {
        method: 'GET',
        urlPath: '/v1/pets',
        queryParameters: { limit: { equalTo: '20' } },
        headers: { Authorization: { equalTo: auth.Authorization } },
      },
      response: { status: 200, body: answers['GET /v1/pets?limit=20'], headers },
    },
    {
      request: { method: 'GET', urlPath: '/v1/pets/5000', headers: { Authorization: { equalTo: auth.Authorization } } },
      response: { status: 200, body: answers['GET /v1/pets/{id}'], headers },
    },
    {
      request: { method: 'POST', urlPath: '/v1/pets', headers: { Authorization: { equalTo: auth.Authorization } } },
      response: { status: 201, body: answers['POST /v1/pets'], headers: { ...headers, Location: '/v1/pets/10001' } },
    },
  ]
  for (const [i, mapping] of mappings.entries()) writeFileSync(join(dir, 'mappings', `${i}.json`), JSON.stringify(mapping))
  const jar = join(ROOT, 'node_modules/wiremock/build/wiremock-standalone-3.13.2.jar')
  return {
    name: 'WireMock 3.13 (warmed)',
    base: `http://127.0.0.1:${port}`,
    async start() {
      const proc = startPinned(SERVER_CORE, 'java', [
        '-jar',
        jar,
        '--port',
        String(port),
        '--bind-address',
        '127.0.0.1',
        '--root-dir',
        dir,
        '--disable-banner',
        '--no-request-journal',
      ])
      await waitFor(`http://127.0.0.1:${port}/v1/pets?limit=20`, { headers: auth })
      process.stdout.write(`  warming WireMock up for ${WARMUP_SECONDS} s…\n`)
      for (const op of ops)
        await wrk(`http://127.0.0.1:${port}${op.path}`, Math.ceil(WARMUP_SECONDS / ops.length), {
          headers: auth,
          ...('script' in op ? { script: op.script } : {}),
        })
      return proc.stop
    },
  }
}

export async function measure(target: Target): Promise<Record<string, { rps: number; p99: number }>> {
  process.stdout.write(`  ${target.name}…\n`)
  const stop = await target.start()
  const results: Record<string, { rps: number; p99: number }> = {}
  try {
    for (const op of ops) {
      const url = `${target.base}${target.withoutBasePath ? op.path.replace(/^\/v1/, '') : op.path}`
      await wrk(url, 1, { headers: auth, ...('script' in op ? { script: op.script } : {}) })
      const result = await rounds(ROUNDS, async () => {
        const r = await wrk(url, SECONDS, { headers: auth, ...('script' in op ? { script: op.script } : {}) })
        if (r.errors > 0) throw new Error(`[bench] ${target.name} ${op.name}: ${r.errors} errors`)
        return { rps: r.rps, p99: r.p99 }
      })
      results[op.name] = result
    }
  } finally {
    await stop()
  }
  return results
}

async function startup(): Promise<{ ours: number; prism: number }> {
  const spec = join(tempDir('prism-'), 'openapi.json')
  writeFileSync(spec, JSON.stringify(openApiDocument({ serverUrl: 'http://127.0.0.1:4290/v1' })))
  const time = async (command: string, args: string[], url: string) => {
    const since = performance.now()
    const proc = startPinned(SERVER_CORE, command, args)
    try {
      return await waitFor(url, { headers: { Authorization: 'Bearer test-free' } }, since)
    } finally {
      await proc.stop()
    }
  }
  const oursMs: number[] = []
  const prismMs: number[] = []
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    oursMs.push(
      await time(SERVER_NODE, [join(ROOT, 'dist/src/cli/main.js'), '--port', '4291', '--log', 'silent'], 'http://127.0.0.1:4291/v1/pets'),
    )
    prismMs.push(
      await time(
        join(ROOT, 'node_modules/.bin/prism'),
        ['mock', spec, '-p', '4290', '-h', '127.0.0.1'],
        'http://127.0.0.1:4290/pets' /* Prism serves paths without the server's base path */,
      ),
    )
  }
  return { ours: median(oursMs), prism: median(prismMs) }
}

export async function benchHttp(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(`\n# Standalone server (${PETS.toLocaleString('en-US')} pets, wrk -t1 -c10, ${SECONDS} s x ${ROUNDS} rounds, medians)`)
  const mine = ours(4210)
  const results = { ours: await measure(mine), bare: await measure(bare(4211)) }
  const stopReference = await mine.start()
  const wm = await wiremock(4212, mine.base)
  await stopReference()
  const wiremockResults = await measure(wm)
  const prismResults = await measure(prism(4213))
  const rows: (string | number)[][] = [
    [
      'operation',
      'petstore-mock req/s',
      'bare req/s',
      'WireMock req/s',
      'Prism req/s',
      'x bare (>= 0.5)',
      'x WireMock (>= 1.2)',
      'p99 ms ours / bare / WireMock / Prism',
      'target',
    ],
  ]
  let ok = true
  for (const op of ops) {
    const o = results.ours[op.name] as { rps: number; p99: number }
    const b = results.bare[op.name] as { rps: number; p99: number }
    const w = wiremockResults[op.name] as { rps: number; p99: number }
    const p = prismResults[op.name] as { rps: number; p99: number }
    // p99 below both peers' (WireMock and Prism); the bare server is the limit, not a peer.
    const met = o.rps / b.rps >= 0.5 && o.rps / w.rps >= 1.2 && o.p99 < w.p99 && o.p99 < p.p99
    ok &&= met
    rows.push([
      op.name,
      o.rps,
      b.rps,
      w.rps,
      p.rps,
      o.rps / b.rps,
      o.rps / w.rps,
      `${o.p99.toFixed(2)} / ${b.p99.toFixed(2)} / ${w.p99.toFixed(2)} / ${p.p99.toFixed(2)}`,
      verdict(met),
    ])
  }
  const lines = [table('Target 1: throughput and p99', rows)]
  return { lines, ok }
}

export async function benchStartup(): Promise<{ lines: string[]; ok: boolean }> {
  console.log('\n# Start-up')
  const lines: string[] = []
  let ok = true
  const start = await startup()
  const startOk = start.ours <= 0.5 * start.prism
  ok &&= startOk
  lines.push(
    table('Target 5: start-up to the first 200 (median)', [
      ['server', 'ms', 'ratio to Prism (<= 0.5)', 'target'],
      ['petstore-mock', start.ours, start.ours / start.prism, verdict(startOk)],
      ['Prism 5.14 mock', start.prism, 1, ''],
    ]),
  )
  return { lines, ok }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHttp()
  await benchStartup()
}
