/**
 * Issue #31's figures for the admin API's reads, against the built server as `npx petstore-mock` starts it.
 *
 * 1. Journal reads: a session's journal filled with 1,000 rejected 1 MiB bodies of NUL bytes, then 20 clients each
 *    reading the whole journal (`GET /__mock/requests?limit=1000`, following `Link`) and 10 exporting it as HAR, all
 *    at once. Targets: the server's RSS peak under its start figure + 300 MB; the API's slowest answer meanwhile (one
 *    connection, a request every 5 ms) under 100 ms, against the same probe with no read as the baseline.
 * 2. Stalled event streams: 4 rounds of 100 `GET /__mock/events` whose clients never read, while API requests (each
 *    with a 12 KiB query, which every `request` event carries) flow for 10 s. Targets: RSS under start + 300 MB at its
 *    peak, and once the server idled (10 s, up to 70 s while V8 gives pages back) within 32 MB of what a server given
 *    the same requests without streams keeps 10 s after them (the baseline).
 * 3. API throughput (wrk, `GET /v1/pets`) with 100 stalled subscribers against none, rounds alternating: >= 0.9x.
 */
import { spawnSync } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { BENCH_KEY, median, probeApi, quick, startMock, table, verdict, waitFor, withPeakRss, wrk } from './lib.js'

const auth = { Authorization: `Bearer ${BENCH_KEY}` }
const SESSION = 'abuse-reads'
const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000))
/** "Back near the start figure": within this many MB of it. */
const BACK_MB = 32

/** `count` POSTs of a 1 MiB body of NUL bytes in the session, four at a time: each refused (400) and journaled. */
async function fillJournal(base: string, count: number): Promise<void> {
  const body = new Uint8Array(1024 * 1024)
  let sent = 0
  const client = async () => {
    while (sent < count) {
      sent += 1
      const response = await fetch(`${base}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'x-mock-session': SESSION },
        body,
      })
      await response.arrayBuffer()
      if (response.status !== 400) throw new Error(`[bench] expected 400, got ${response.status}`)
    }
  }
  await Promise.all([client(), client(), client(), client()])
}

/** Reads `path` and every page its `Link` headers lead to; a 503 is retried after its `Retry-After`. */
async function readAll(base: string, path: string): Promise<{ bytes: number; pages: number; refused: number }> {
  let next: string | undefined = path
  let bytes = 0
  let pages = 0
  let refused = 0
  while (next !== undefined) {
    const response: Response = await fetch(`${base}${next}`, { headers: { 'x-mock-session': SESSION } })
    const body = await response.arrayBuffer()
    if (response.status === 503) {
      refused += 1
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000))
      continue
    }
    if (response.status !== 200) throw new Error(`[bench] ${next} answered ${response.status}`)
    bytes += body.byteLength
    pages += 1
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1]
  }
  return { bytes, pages, refused }
}

async function journalReads(): Promise<{ rows: (string | number)[][]; ok: boolean }> {
  const port = 4350
  const base = `http://127.0.0.1:${port}`
  const proc = startMock(port)
  try {
    await waitFor(`${base}/v1/pets?limit=1`, { headers: auth })
    // The admin API is loaded on its first call (express): loaded before the figures, as any first use of it would.
    await waitFor(`${base}/__mock/health`)
    await settle()
    const start = proc.rssMb()
    const idleProbe = probeApi(`${base}/v1/pets?limit=20`)
    await new Promise((resolve) => setTimeout(resolve, quick ? 2_000 : 5_000))
    const idle = await idleProbe.stop()
    await fillJournal(base, quick ? 300 : 1_000)
    await settle()
    const filled = proc.rssMb()
    const probe = probeApi(`${base}/v1/pets?limit=20`)
    const readers = quick ? { pages: 6, hars: 3 } : { pages: 20, hars: 10 }
    const { result, peak } = await withPeakRss(proc, () =>
      Promise.all([
        ...Array.from({ length: readers.pages }, () => readAll(base, '/__mock/requests?limit=1000')),
        ...Array.from({ length: readers.hars }, () => readAll(base, '/__mock/requests.har')),
      ]),
    )
    const api = await probe.stop()
    await settle()
    const after = proc.rssMb()
    const mib = result.reduce((sum, read) => sum + read.bytes, 0) / 2 ** 20
    const refused = result.reduce((sum, read) => sum + read.refused, 0)
    const pages = result.reduce((sum, read) => sum + read.pages, 0)
    const memoryOk = peak - start <= 300
    const latencyOk = api.max < 100
    const load = `${readers.pages} full journal reads + ${readers.hars} HAR exports at once (${pages} pages, ${mib.toFixed(0)} MiB, ${refused} x 503)`
    return {
      rows: [
        ['server RSS at start', start, '', '(baseline)'],
        ['after 1,000 rejected 1 MiB NUL bodies', filled, filled - start, ''],
        [`peak during ${load}`, peak, peak - start, `<= start + 300 MB: ${verdict(memoryOk)}`],
        ['2 s after the reads', after, after - start, ''],
        ['slowest API answer, no read (ms)', idle.max, `p99 ${idle.p99.toFixed(2)}`, '(baseline)'],
        [
          'slowest API answer during the reads (ms)',
          api.max,
          `p99 ${api.p99.toFixed(2)}; x${(api.max / idle.max).toFixed(1)}`,
          `< 100 ms: ${verdict(latencyOk)}`,
        ],
      ],
      ok: memoryOk && latencyOk,
    }
  } finally {
    await proc.stop()
  }
}

/** `count` clients of `GET /__mock/events` that never read a byte; resolves once each has its answer's headers. */
async function stalledStreams(port: number, count: number): Promise<Socket[]> {
  const sockets: Socket[] = []
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: '127.0.0.1', port })
    socket.on('error', () => undefined)
    socket.write(`GET /__mock/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
    // The status line arrives, then nothing more is read: the stream's frames pile up in the kernel, then in the server.
    await new Promise<void>((resolve) => socket.once('data', () => resolve()))
    socket.pause()
    sockets.push(socket)
  }
  return sockets
}

/** How many connections the server on `port` holds open (`ss`), to count the streams it cut. */
function openConnections(port: number): number {
  const out = spawnSync('ss', ['-Htn', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' }).stdout ?? ''
  return out.split('\n').filter((line) => line.trim() !== '').length
}

/**
 * One server through `rounds` rounds of API requests (each with a 12 KiB query, which every `request` event carries),
 * each round with 100 stalled streams open when `stalled`: its RSS at start, its peak and the streams it cut in each
 * round, and 10 s after the last (the same traffic without streams is the baseline of what the heap keeps).
 */
async function streamRounds(port: number, stalled: boolean, backTo?: number) {
  const base = `http://127.0.0.1:${port}`
  const proc = startMock(port)
  const rounds = quick ? 2 : 4
  try {
    await waitFor(`${base}/v1/pets?limit=1`, { headers: auth })
    await waitFor(`${base}/__mock/health`)
    await settle()
    const start = proc.rssMb()
    const peaks: number[] = []
    const cut: number[] = []
    for (let round = 1; round <= rounds; round++) {
      const { result: sockets, peak } = await withPeakRss(proc, async () => {
        const sockets = stalled ? await stalledStreams(port, 100) : []
        await wrk(`${base}/v1/pets?limit=20&q=${'x'.repeat(12 * 1024)}`, quick ? 5 : 10, { headers: auth })
        return sockets
      })
      cut.push(sockets.length - openConnections(port))
      for (const socket of sockets) socket.destroy()
      peaks.push(peak)
    }
    await new Promise((resolve) => setTimeout(resolve, 10_000))
    const after = proc.rssMb()
    // V8 gives the heap's pages back once the server idles a while (its memory reducer): polled for up to 60 s more.
    const since = performance.now()
    let settled = after
    while (backTo !== undefined && settled > backTo && performance.now() - since < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      settled = proc.rssMb()
    }
    return { start, peaks, cut, after, settled, waited: Math.round((performance.now() - since) / 1000) + 10 }
  } finally {
    await proc.stop()
  }
}

async function streamMemory(): Promise<{ rows: (string | number)[][]; ok: boolean }> {
  const baseline = await streamRounds(4353, false)
  const streams = await streamRounds(4351, true, baseline.after + BACK_MB)
  const rows: (string | number)[][] = [
    ['server RSS at start', streams.start, '', '(baseline)'],
    [
      'peak, the same API requests without streams',
      Math.max(...baseline.peaks),
      Math.max(...baseline.peaks) - baseline.start,
      '(information)',
    ],
  ]
  let ok = true
  for (const [i, peak] of streams.peaks.entries()) {
    const met = peak - streams.start <= 300
    ok &&= met
    rows.push([
      `round ${i + 1}: 100 stalled streams (${streams.cut[i]} cut by the server)`,
      peak,
      peak - streams.start,
      `<= start + 300 MB: ${verdict(met)}`,
    ])
  }
  const back = streams.settled <= baseline.after + BACK_MB
  rows.push(['10 s after the requests, without streams', baseline.after, baseline.after - baseline.start, '(baseline)'])
  const gone = `${streams.peaks.length * 100} streams went`
  if (streams.waited > 10) rows.push([`10 s after the last of ${gone}`, streams.after, streams.after - streams.start, '(information)'])
  rows.push([
    `${streams.waited} s after the last of ${gone}`,
    streams.settled,
    streams.settled - streams.start,
    `<= baseline + ${BACK_MB} MB within 70 s: ${verdict(back)}`,
  ])
  return { rows, ok: ok && back }
}

async function streamThroughput(): Promise<{ rows: (string | number)[][]; ok: boolean }> {
  const port = 4352
  const base = `http://127.0.0.1:${port}`
  const proc = startMock(port)
  const seconds = quick ? 2 : 5
  const count = quick ? 2 : 5
  const without: number[] = []
  const withStalled: number[] = []
  const ratios: number[] = []
  try {
    await waitFor(`${base}/v1/pets?limit=1`, { headers: auth })
    const measure = async () => {
      const r = await wrk(`${base}/v1/pets?limit=20`, seconds, { headers: auth })
      if (r.errors > 0) throw new Error(`[bench] ${r.errors} errors`)
      return r.rps
    }
    for (let round = 0; round < count; round++) {
      // Alternate which goes first, so a drift of the machine does not favour one side.
      const first = round % 2 === 0
      const a = first ? await measure() : undefined
      const sockets = await stalledStreams(port, 100)
      const b = await measure()
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => setTimeout(resolve, 500))
      const c = first ? (a as number) : await measure()
      without.push(c)
      withStalled.push(b)
      ratios.push(b / c)
    }
  } finally {
    await proc.stop()
  }
  const ratio = median(ratios)
  return {
    rows: [['GET /v1/pets?limit=20', median(without), median(withStalled), ratio, `>= 0.9: ${verdict(ratio >= 0.9)}`]],
    ok: ratio >= 0.9,
  }
}

export async function benchAbuseReads(): Promise<{ lines: string[]; ok: boolean }> {
  console.log("\n# The admin API's reads under abuse (issue #31)")
  const reads = await journalReads()
  const memory = await streamMemory()
  const throughput = await streamThroughput()
  return {
    lines: [
      table('Journal reads of 1,000 entries of 1 MiB NUL bodies (RSS in MB)', [
        ['measure', 'value', 'over start / detail', 'target'],
        ...reads.rows,
      ]),
      table('Event streams whose clients never read (RSS in MB)', [['measure', 'RSS MB', 'over start', 'target'], ...memory.rows]),
      table('API throughput with 100 stalled event-stream subscribers (rounds alternate)', [
        ['operation', 'req/s, none', 'req/s, 100 stalled', 'x (median of rounds)', 'target'],
        ...throughput.rows,
      ]),
    ],
    ok: reads.ok && memory.ok && throughput.ok,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAbuseReads()
