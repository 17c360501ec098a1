/**
 * Issue #18, the cause of the tail: the garbage collector's pauses in the server under load, read from
 * `node --trace-gc`, beside the p99 wrk saw. Rows: this build as `npx petstore-mock` runs it (journal on), the same
 * keeping no journal entry (`--journal-max-bytes 0`: what the journal costs the collector), the same with V8's helper
 * threads kept (`node --concurrent-marking --no-single-threaded-gc`: the server is pinned to one core here, where it
 * turns them off, decisions 016 and 018), and with `--baseline=DIR` another checkout's build (e.g. before a change).
 *
 *   npm run bench -- --only=gc [--baseline=/tmp/before]     (about 1 minute)
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { BENCH_KEY, benchFixtures, median, quick, ROOT, SERVER_CORE, SERVER_NODE, table, waitFor, wrk } from './lib.js'

const PETS = 10_000
const SECONDS = quick ? 4 : 8
const auth = { Authorization: `Bearer ${BENCH_KEY}` }
const ops = [
  { name: 'GET /v1/pets?limit=20', path: '/v1/pets?limit=20' },
  { name: 'GET /v1/pets/{id}', path: '/v1/pets/5000' },
] as const

interface Variant {
  name: string
  checkout: string
  nodeFlags: string[]
  args: string[]
}

/** The pause of each `--trace-gc` line of a kind, in ms ("…MB, 0.71 / 0.00 ms …"). */
function pauses(lines: string[], kind: RegExp): number[] {
  return lines.filter((line) => kind.test(line)).map((line) => Number(/MB, ([\d.]+) \//.exec(line)?.[1] ?? Number.NaN))
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number)
}

async function measure(variant: Variant, op: (typeof ops)[number], port: number): Promise<(string | number)[]> {
  const cli = join(variant.checkout, 'dist/src/cli/main.js')
  const args = [...variant.nodeFlags, '--trace-gc', cli, '--port', String(port), '--log', 'silent', '--fixtures', benchFixtures()]
  const child = spawn('taskset', ['-c', SERVER_CORE, SERVER_NODE, ...args, '--pets', String(PETS), ...variant.args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  try {
    await waitFor(`http://127.0.0.1:${port}/v1/pets?limit=1`, { headers: auth })
    await wrk(`http://127.0.0.1:${port}${op.path}`, 2, { headers: auth })
    const from = output.length
    const result = await wrk(`http://127.0.0.1:${port}${op.path}`, SECONDS, { headers: auth })
    const lines = output.slice(from).split('\n')
    const scavenges = pauses(lines, /Scavenge/)
    const marks = pauses(lines, /Mark-Compact|Mark-Sweep/i)
    return [
      op.name,
      variant.name,
      result.rps,
      result.p99,
      String(scavenges.length),
      median(scavenges),
      quantile(scavenges, 0.9),
      Math.max(...scavenges),
      String(marks.length),
      marks.length === 0 ? 'n/a' : Math.max(...marks).toFixed(2),
    ]
  } finally {
    child.kill('SIGKILL')
  }
}

export async function benchGc(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(`\n# Garbage collection under load (${PETS.toLocaleString('en-US')} pets, wrk -t1 -c10, ${SECONDS} s, node --trace-gc)`)
  const baseline = process.argv.find((arg) => arg.startsWith('--baseline='))?.slice(11)
  const variants: Variant[] = [
    { name: 'this build', checkout: ROOT, nodeFlags: [], args: [] },
    { name: 'this build, --journal-max-bytes 0', checkout: ROOT, nodeFlags: [], args: ['--journal-max-bytes', '0'] },
    {
      name: "this build, V8's helper threads kept",
      checkout: ROOT,
      nodeFlags: ['--concurrent-marking', '--no-single-threaded-gc'],
      args: [],
    },
    ...(baseline ? [{ name: `baseline (${baseline})`, checkout: baseline, nodeFlags: [], args: [] }] : []),
  ]
  const rows: (string | number)[][] = [
    ['operation', 'server', 'req/s', 'p99 ms', 'scavenges', 'median ms', 'p90 ms', 'max ms', 'mark-compacts', 'longest ms'],
  ]
  let port = 4700
  for (const op of ops) for (const variant of variants) rows.push(await measure(variant, op, port++))
  // Information, no target: the tail bench (--only=tail) holds the targets.
  return { lines: [table('Pauses of the garbage collector (scavenges, mark-compacts) during the measured run', rows)], ok: true }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchGc()
