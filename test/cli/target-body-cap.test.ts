/**
 * `verify` and `snapshot` read every answer of the target under a size cap (regression): a target sending an
 * endless body drove them to 2.1 GB before a message that did not say "too large". The target here is a node:http
 * server on 127.0.0.1 that writes a JSON array without end, as fast as the client reads it, and stops when the
 * client closes or after `CEILING` bytes, whichever comes first.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { closeServers, ensureBuilt, MIB, runCli, startServer } from '../http/support.js'

/** What the endless target writes at most: four times the default cap, so a client that never stops still ends. */
const CEILING = 64 * MIB
const PET = Buffer.from(`${JSON.stringify({ id: 1, name: 'x'.repeat(1000), categoryId: 1 })},`)
const NO_STACK = /^\s+at .+:\d+:\d+\)?$/m

let dir = ''
let targets: Server[] = []

beforeAll(ensureBuilt)
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-body-cap-'))
})
afterEach(async () => {
  await closeServers()
  for (const target of targets) target.closeAllConnections()
  await Promise.all(targets.map((target) => new Promise((done) => target.close(done))))
  targets = []
  await rm(dir, { recursive: true, force: true })
})

/** Writes `[` and pets without end under backpressure, until the client closes or `CEILING` bytes are out. */
function endless(response: ServerResponse, sent: { bytes: number }): void {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.write('[')
  const pump = () => {
    while (!response.destroyed && sent.bytes < CEILING) {
      sent.bytes += PET.length
      if (!response.write(PET)) {
        response.once('drain', pump)
        return
      }
    }
    if (!response.destroyed) response.end(']')
  }
  pump()
}

/** A target on loopback: `endlessFor(request)` picks the requests answered without end; the others go to `fallback`. */
async function startTarget(
  endlessFor: (request: IncomingMessage) => boolean,
  fallback?: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ url: string; sent: { bytes: number } }> {
  const sent = { bytes: 0 }
  const target = createServer((request, response) => {
    if (endlessFor(request) || fallback === undefined) endless(response, sent)
    else fallback(request, response)
  })
  targets.push(target)
  await new Promise<void>((done) => target.listen(0, '127.0.0.1', done))
  const { port } = target.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/v1`, sent }
}

/** Relays a request to a running mock, as it is. */
function relayTo(mock: string) {
  return (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([, value]) => typeof value === 'string')) as Record<
        string,
        string
      >
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks)
      const answer = await fetch(`${mock}${request.url}`, { method: request.method ?? 'GET', headers, ...(body ? { body } : {}) })
      const names = [...answer.headers.entries()].filter(([name]) => name !== 'content-length' && name !== 'transfer-encoding')
      response.writeHead(answer.status, Object.fromEntries(names)).end(Buffer.from(await answer.arrayBuffer()))
    })
  }
}

describe('verify against a target sending more than the cap', () => {
  it('exits 2 naming the request and the 16 MiB cap when the first answer is too large', async () => {
    const { url, sent } = await startTarget(() => true)
    const result = await runCli(['verify', '--target', url, '--key', 'test-pro'])
    expect(result.stderr).toContain(
      `petstore-mock verify: cannot check ${url}: the target's answer to GET /v1/pets?limit=1 is larger than 16 MiB (--max-body-bytes).`,
    )
    expect(result.stderr).not.toMatch(NO_STACK)
    expect(result.code).toBe(2)
    expect(sent.bytes).toBeLessThan(CEILING)
  })

  it('fails the checks that read the too large answer, names it, and exits 1', async () => {
    const { url: mock } = await startServer()
    const { url } = await startTarget((request) => request.url === '/v1/pets?limit=100', relayTo(mock))
    const result = await runCli(['verify', '--target', url, '--key', 'test-pro', '--max-body-bytes', '65536', '--json'])
    const report = JSON.parse(result.stdout) as { checks: { id: string; actual: string; ok: boolean | null }[] }
    const largest = report.checks.filter((check) => check.actual.includes('GET /v1/pets?limit=100'))
    expect(largest.length).toBeGreaterThan(0)
    for (const check of largest) {
      expect(check.actual).toContain("the target's answer to GET /v1/pets?limit=100 is larger than 64 KiB (--max-body-bytes)")
      expect(check.ok).toBe(false)
    }
    expect(result.code).toBe(1)
  })

  it('exits 2 naming the time limit when the body stalls', async () => {
    const stalled: ServerResponse[] = []
    const { url } = await startTarget(
      () => false,
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' }).write('[')
        stalled.push(response)
      },
    )
    const result = await runCli(['verify', '--target', url, '--key', 'test-pro', '--timeout', '500'])
    expect(result.stderr).toContain(
      `petstore-mock verify: cannot check ${url}: the target's answer to GET /v1/pets?limit=1 did not end within 500 ms (--timeout).`,
    )
    expect(result.code).toBe(2)
  })
})

describe('snapshot against a target sending more than the cap', () => {
  it('exits 1 naming the request and the 16 MiB cap, not "not JSON"', async () => {
    const { url, sent } = await startTarget(() => true)
    const result = await runCli(['snapshot', '--target', url, '--key', 'test-pro', '--out', join(dir, 'state.json')])
    expect(result.stderr).toContain(
      `petstore-mock snapshot: the target's answer to GET ${url}/pets?limit=100&status=available is larger than 16 MiB (--max-body-bytes): raise --max-body-bytes, or check --target.`,
    )
    expect(result.stderr).not.toContain('not JSON')
    expect(result.stderr).not.toMatch(NO_STACK)
    expect(result.code).toBe(1)
    expect(sent.bytes).toBeLessThan(CEILING)
  })

  it('takes its cap from --max-body-bytes', async () => {
    const { url: mock } = await startServer()
    const { url } = await startTarget((request) => request.url === '/v1/pets?limit=100', relayTo(mock))
    const out = join(dir, 'state.json')
    const result = await runCli(['snapshot', '--target', url, '--key', 'test-pro', '--out', out, '--max-body-bytes', '4096'])
    expect(result.stderr).toContain(`the target's answer to GET ${url}/pets?limit=100 is larger than 4 KiB (--max-body-bytes)`)
    expect(result.code).toBe(1)
  })
})
