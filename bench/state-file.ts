/**
 * What `--state-file` (and `--fsync`) costs a create, against the same build without it, and against another
 * checkout's build with the same options (`--baseline=DIR`, e.g. the build before a change), measured round by
 * round in one run (A B C … A B C …), so the machine's drift falls on all alike. Fresh servers, 10,000 pets each.
 *
 * Before the load: the time to write a 300,000-pet world's state file in-process, and the longest step of it.
 *
 *   npm run bench -- --only=state-file                              (about 2 minutes)
 *   npm run bench -- --only=state-file --baseline=/tmp/before        (about 3 minutes)
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { BENCH_KEY, median, quick, ROOT, startMock, table, tempDir, verdict, waitFor, wrk } from './lib.js'

const PETS = 10_000
const SECONDS = quick ? 2 : 5
const ROUNDS = quick ? 1 : 3
const CONNECTIONS = [10, 50] as const
const auth = { Authorization: `Bearer ${BENCH_KEY}` }
const script = join(ROOT, 'bench/servers/post.lua')

interface Server {
  readonly name: string
  readonly port: number
  readonly checkout: string
  readonly args: string[]
}

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** The snapshot of a `pets`-pet world written to a state file by `checkout`'s build: its time, and its longest step. */
async function snapshotSteps(checkout: string, pets: number, file: string): Promise<{ totalMs: number; longestMs: number }> {
  const load = (path: string) => import(pathToFileURL(join(checkout, 'dist/src', path)).href)
  const { createWorld } = await load('world/create-world.js')
  const { writeStateFile } = await load('server/state/file.js')
  const world = createWorld({ seed: 1, pets })
  const runs: { totalMs: number; longestMs: number }[] = []
  for (let run = 0; run < 5; run++) {
    // From a collected heap: the garbage of the bench before (or of the other build) does not fall into this write.
    gc()
    // The longest time the event loop is held: what a request arriving during the write may wait.
    let last = performance.now()
    let longestMs = 0
    let writing = true
    const tick = () => {
      const now = performance.now()
      longestMs = Math.max(longestMs, now - last)
      last = now
      if (writing) setImmediate(tick)
    }
    setImmediate(tick)
    const started = performance.now()
    await writeStateFile(file, { version: 1, logSeq: 0, sessions: new Map([['default', world.snapshot()]]) })
    const totalMs = performance.now() - started
    writing = false
    runs.push({ totalMs, longestMs })
  }
  return { totalMs: median(runs.map((r) => r.totalMs)), longestMs: median(runs.map((r) => r.longestMs)) }
}

export async function benchStateFile(): Promise<{ lines: string[]; ok: boolean }> {
  const baseline = process.argv.find((arg) => arg.startsWith('--baseline='))?.slice(11)
  const lines: string[] = []
  const SNAPSHOT_PETS = quick ? 100_000 : 300_000
  console.log(`\n# Writing the state file of ${SNAPSHOT_PETS.toLocaleString('en-US')} pets in-process (median of 5)`)
  const stepRows: (string | number)[][] = [['build', 'total ms', 'longest step ms']]
  const builds: [string, string][] = [['this build', ROOT], ...(baseline ? [['baseline', baseline] as [string, string]] : [])]
  for (const [name, checkout] of builds) {
    const steps = await snapshotSteps(checkout, SNAPSHOT_PETS, join(tempDir('petstore-bench-steps-'), 'state.json'))
    stepRows.push([name, steps.totalMs, steps.longestMs])
  }
  lines.push(table('Snapshot write (the event loop runs between steps)', stepRows))
  const dir = tempDir('petstore-bench-state-')
  const file = (name: string) => ['--state-file', join(dir, `${name}.json`)]
  const servers: Server[] = [
    { name: 'this build', port: 4330, checkout: ROOT, args: [] },
    { name: 'this build, --state-file', port: 4331, checkout: ROOT, args: file('this') },
    { name: 'this build, --state-file --fsync', port: 4332, checkout: ROOT, args: [...file('this-fsync'), '--fsync'] },
  ]
  if (baseline) {
    servers.push(
      { name: 'baseline, --state-file', port: 4333, checkout: baseline, args: file('base') },
      { name: 'baseline, --state-file --fsync', port: 4334, checkout: baseline, args: [...file('base-fsync'), '--fsync'] },
    )
  }
  console.log(
    `\n# POST /v1/pets with --state-file (${PETS.toLocaleString('en-US')} pets, wrk -t1, ${SECONDS} s x ${ROUNDS} rounds alternating, medians)${baseline ? `, baseline ${baseline}` : ''}`,
  )
  const procs = servers.map((server) => startMock(server.port, ['--pets', String(PETS), ...server.args], server.checkout))
  const targets: (string | number)[][] = [['target', 'ratio', 'wanted', 'verdict']]
  let ok = true
  try {
    for (const server of servers) await waitFor(`http://127.0.0.1:${server.port}/v1/pets?limit=1`, { headers: auth })
    for (const connections of CONNECTIONS) {
      const options = { headers: auth, connections, script }
      const url = (server: Server) => `http://127.0.0.1:${server.port}/v1/pets`
      for (const server of servers) await wrk(url(server), 1, options)
      const samples = servers.map(() => ({ rps: [] as number[], p50: [] as number[], p99: [] as number[] }))
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, server] of servers.entries()) {
          const r = await wrk(url(server), SECONDS, options)
          if (r.errors > 0) throw new Error(`[bench] ${server.name}: ${r.errors} errors`)
          samples[i]?.rps.push(r.rps)
          samples[i]?.p50.push(r.p50)
          samples[i]?.p99.push(r.p99)
        }
      }
      const figures = samples.map((s) => ({ rps: median(s.rps), p50: median(s.p50), p99: median(s.p99) }))
      const plain = figures[0] as (typeof figures)[0]
      const rows: (string | number)[][] = [['server', 'req/s', 'p50 ms', 'p99 ms', 'req/s / this build without']]
      for (const [i, server] of servers.entries()) {
        const f = figures[i] as (typeof figures)[0]
        rows.push([server.name, f.rps, f.p50.toFixed(2), f.p99.toFixed(2), f.rps / plain.rps])
      }
      lines.push(table(`c=${connections}`, rows))
      const withFile = figures[1] as (typeof figures)[0]
      const rps = withFile.rps / plain.rps
      targets.push([`c=${connections}: --state-file req/s / without`, rps, '>= 0.8', verdict(rps >= 0.8)])
      ok &&= rps >= 0.8
      const p99 = withFile.p99 / plain.p99
      targets.push([`c=${connections}: --state-file p99 / without`, p99, '<= 2', verdict(p99 <= 2)])
      ok &&= p99 <= 2
    }
  } finally {
    await Promise.all(procs.map((proc) => proc.stop()))
  }
  lines.push(table('Targets (issue #18)', targets))
  return { lines, ok }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStateFile()
