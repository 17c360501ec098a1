/**
 * Admin work on the whole state (src/admin/operations.ts writes each operation's bound), against the built server as
 * `npx petstore-mock --pets 250000` starts it, while a probe sends the API a request every 5 ms:
 * 1. Exports: 24 `GET /__mock/state` at once, half of them by clients that never read a byte.
 *    Targets: RSS at its peak within start + 300 MB; the API's slowest answer meanwhile under 500 ms.
 * 2. Imports: 4 `PUT /__mock/state` of that export at once (a 503 past the admin write budget is retried after its
 *    Retry-After). Targets: RSS within start + 600 MB; the API's slowest answer under 500 ms.
 * 3. MCP (`/__mock/mcp`): 4 `export_state` and 4 `create_pets` of 1,000 pets at once. Targets as for the exports.
 * The probe with no admin call is the baseline of each run.
 */
import { connect, type Socket } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { BENCH_KEY, type Proc, probeApi, quick, startMock, table, verdict, waitFor, withPeakRss } from './lib.js'

const PORT = 4360
const BASE = `http://127.0.0.1:${PORT}`
const PETS = quick ? 50_000 : 250_000
const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000))
const STALL_MS = 500

/** `GET /__mock/state` by a client that reads its headers and then nothing: the server's answer waits on it. */
async function stalledExport(): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port: PORT })
  socket.on('error', () => undefined)
  socket.write(`GET /__mock/state HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\n\r\n`)
  await new Promise<void>((resolve) => socket.once('data', () => resolve()))
  socket.pause()
  return socket
}

/** The whole export, read; its size in bytes. */
async function readExport(): Promise<string> {
  const response = await fetch(`${BASE}/__mock/state`)
  if (response.status !== 200) throw new Error(`[bench] GET /__mock/state answered ${response.status}`)
  return response.text()
}

/** `PUT /__mock/state` until it is taken (a 503 waits its Retry-After); the 503s it met. */
async function importState(text: string): Promise<number> {
  for (let refused = 0; ; refused++) {
    const response = await fetch(`${BASE}/__mock/state`, { method: 'PUT', body: text })
    await response.arrayBuffer()
    if (response.status === 204) return refused
    if (response.status !== 503) throw new Error(`[bench] PUT /__mock/state answered ${response.status}`)
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000))
  }
}

/** Runs `work` with the API probed and the RSS sampled: the peak over start, and the probe's slowest answer. */
async function measured<T>(proc: Proc, start: number, work: () => Promise<T>) {
  const probe = probeApi(`${BASE}/v1/pets?limit=20`)
  const { result, peak } = await withPeakRss(proc, work)
  const api = await probe.stop()
  return { result, over: peak - start, api }
}

async function mcpClient(): Promise<Client> {
  const client = new Client({ name: 'petstore-mock-bench', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/__mock/mcp`)))
  return client
}

export async function benchAdminState(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(`\n# Admin work on a state of ${PETS.toLocaleString('en')} pets`)
  const rows: (string | number)[][] = []
  let ok = true
  const row = (what: string, run: { over: number; api: { max: number; p99: number } }, mb: number, detail: string) => {
    const memoryOk = run.over <= mb
    const stallOk = run.api.max < STALL_MS
    ok &&= memoryOk && stallOk
    rows.push([
      what,
      run.over.toFixed(0),
      `<= ${mb}: ${verdict(memoryOk)}`,
      `${run.api.max.toFixed(1)} (p99 ${run.api.p99.toFixed(1)})`,
      `< ${STALL_MS}: ${verdict(stallOk)}`,
      detail,
    ])
  }
  // A server of its own for each load: V8 keeps the pages a load grew into, which would count against the next.
  const phase = async (what: string, mb: number, work: (text: string) => Promise<string>) => {
    const proc = startMock(PORT, ['--pets', String(PETS)])
    try {
      await waitFor(`${BASE}/v1/pets?limit=1`, { headers: { Authorization: `Bearer ${BENCH_KEY}` } })
      const text = await readExport()
      await settle()
      const start = proc.rssMb()
      const run = await measured(proc, start, () => work(text))
      row(what, run, mb, run.result)
    } finally {
      await proc.stop()
    }
  }
  await phase('no admin call (baseline)', 300, async () => {
    await settle()
    return ''
  })
  await phase('24 exports at once, 12 never read', 300, async (text) => {
    const stalled = await Promise.all(Array.from({ length: 12 }, stalledExport))
    const read = await Promise.all(Array.from({ length: 12 }, readExport))
    await settle()
    for (const socket of stalled) socket.destroy()
    // The pets are the same in each; the counters go on with the probe's requests.
    const pets = (state: string) => state.slice(0, state.indexOf('}],"'))
    if (!read.every((one) => pets(one) === pets(text))) throw new Error("[bench] an export's pets differed from the first's")
    return `${(text.length / 2 ** 20).toFixed(1)} MiB each`
  })
  await phase('4 imports of that export at once', 600, async (text) => {
    const refused = await Promise.all(Array.from({ length: 4 }, () => importState(text)))
    return `${refused.reduce((a, b) => a + b, 0)} x 503, retried`
  })
  await phase('MCP: 4 export_state + 4 create_pets (1,000) at once', 300, async () => {
    const clients = await Promise.all(Array.from({ length: 8 }, mcpClient))
    const results = await Promise.all(
      clients.map((client, i) =>
        i % 2 === 0
          ? client.callTool({ name: 'export_state', arguments: {} })
          : client.callTool({ name: 'create_pets', arguments: { count: 1000, seed: i } }),
      ),
    )
    await Promise.all(clients.map((client) => client.close()))
    return `${results.filter((result) => result.isError).length} answered isError (export_state past 2 MiB)`
  })
  return {
    lines: [
      table(`Admin work on ${PETS.toLocaleString('en')} pets (MB over the RSS at start; the API's slowest answer in ms)`, [
        ['load', 'RSS over start', 'target', 'slowest API answer', 'target', 'detail'],
        ...rows,
      ]),
    ],
    ok,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { lines } = await benchAdminState()
  console.log(lines.join('\n'))
}
