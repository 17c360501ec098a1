/**
 * `--proxy` under upstream bodies far over its cap (issue 31; docs/benchmarks.md has the figures): the server's peak
 * RSS while five clients at once ask for them, against the same server idle, and its slowest API answer meanwhile
 * against its slowest idle. Each proxied answer is 502 once the body passes `proxyMaxBodyBytes` (8 MiB by default).
 * The upstream is a node:http server in this process on 127.0.0.1; run alone with `npx tsx bench/proxy-memory.ts`
 * (after `npm run build`).
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { BENCH_KEY, quick, startMock, table, verdict, waitFor } from './lib.js'

const auth = { Authorization: `Bearer ${BENCH_KEY}` }
const MB = 1024 * 1024
const CLIENTS = 5
const BODY_MB = quick ? 50 : 200

/** Writes `bytes` in 64 KiB chunks as fast as the reader takes them. */
function stream(res: ServerResponse, bytes: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'x')
  let left = bytes
  const more = () => {
    while (left > 0 && !res.destroyed) {
      left -= chunk.length
      if (!res.write(chunk)) return
    }
    if (!res.destroyed) res.end()
  }
  res.on('drain', more)
  more()
}

/** The slowest of sequential `GET /v1/pets?limit=1` while `busy()` holds, in ms. */
async function slowestApiAnswer(base: string, busy: () => boolean): Promise<number> {
  let slowest = 0
  do {
    const started = performance.now()
    const response = await fetch(`${base}/v1/pets?limit=1`, { headers: auth })
    await response.arrayBuffer()
    slowest = Math.max(slowest, performance.now() - started)
  } while (busy())
  return slowest
}

export async function proxyMemory(): Promise<{ rows: (string | number)[][]; ok: boolean }> {
  const upstream = createServer((req, res) => {
    req.resume()
    res.writeHead(200, { 'content-type': 'application/octet-stream' })
    stream(res, BODY_MB * MB)
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  const port = 4340
  const proc = startMock(port, ['--proxy', `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`])
  const base = `http://127.0.0.1:${port}`
  try {
    await waitFor(`${base}/v1/pets?limit=1`, { headers: auth })
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const idle = proc.rssMb()
    let idleSlowest = 0
    for (let i = 0; i < 20; i++) idleSlowest = Math.max(idleSlowest, await slowestApiAnswer(base, () => false))
    let peak = idle
    const sampler = setInterval(() => {
      peak = Math.max(peak, proc.rssMb())
    }, 20)
    let running = CLIENTS
    const statuses: number[] = []
    const attack = Array.from({ length: CLIENTS }, async () => {
      const response = await fetch(`${base}/v1/store/big`, { headers: auth })
      await response.arrayBuffer()
      statuses.push(response.status)
      running -= 1
    })
    const slowest = await slowestApiAnswer(base, () => running > 0)
    await Promise.all(attack)
    clearInterval(sampler)
    const all502 = statuses.every((status) => status === 502)
    const ok = peak - idle <= 100 && all502
    return {
      rows: [
        ['server idle (baseline)', idle, idle, 1, idleSlowest, '', ''],
        [
          `${CLIENTS} clients at once, each a ${BODY_MB} MB upstream body`,
          idle,
          peak,
          peak / idle,
          slowest,
          all502 ? `all ${CLIENTS} 502` : statuses.join(' '),
          `peak <= idle + 100 MB: ${verdict(ok)}`,
        ],
      ],
      ok,
    }
  } finally {
    await proc.stop()
    upstream.closeAllConnections()
    upstream.close()
  }
}

/** The table of `proxyMemory`, for bench/memory.ts. */
export async function benchProxyMemory(): Promise<{ lines: string[]; ok: boolean }> {
  const { rows, ok } = await proxyMemory()
  const text = table('--proxy upstream bodies bounded by proxyMaxBodyBytes (RSS sampled every 20 ms)', [
    ['load', 'idle RSS MB', 'peak RSS MB', 'x idle', 'slowest API answer ms', 'answers', 'target'],
    ...rows,
  ])
  return { lines: [text], ok }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchProxyMemory()
