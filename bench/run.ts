/**
 * `npm run bench` (add `-- --quick` for a short run): every benchmark of issue #8 in one go, each
 * printing its table with the ratio to its baseline, then a summary of the targets.
 */
import { spawnSync } from 'node:child_process'
import { cpus, totalmem } from 'node:os'
import { benchAbuse } from './abuse.js'
import { benchAbuseReads } from './abuse-reads.js'
import { benchAdminState } from './admin-state.js'
import { benchBuilds } from './builds.js'
import { benchCore } from './core.js'
import { benchEvents } from './events.js'
import { benchFlatCost } from './flat-cost.js'
import { benchHttp, benchStartup } from './http.js'
import { benchInProcess } from './in-process.js'
import { quick, SERVER_NODE, SERVER_NODE_VERSION } from './lib.js'
import { benchMemory } from './memory.js'
import { benchRedis } from './redis.js'
import { benchSoak } from './soak.js'
import { benchStateFile } from './state-file.js'
import { benchOverLimit, benchTail } from './tail.js'
import { benchTimeline } from './timeline.js'
import { benchTracingHttp } from './tracing-http.js'

const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice(7)
  .split(',')
const serverNode = SERVER_NODE === process.execPath ? '' : ` (servers on Node ${SERVER_NODE_VERSION}: --node)`
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}${serverNode}, wrk ${spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout?.split('\n')[0]?.split(' ')[1] ?? '?'}`
console.log(`petstore-mock benchmarks${quick ? ' (--quick)' : ''} on ${machine}, ${new Date().toISOString()}`)
const suites = {
  http: benchHttp,
  startup: benchStartup,
  'flat-cost': benchFlatCost,
  'in-process': benchInProcess,
  memory: benchMemory,
  soak: benchSoak,
  abuse: benchAbuse,
  'abuse-reads': benchAbuseReads,
  'admin-state': benchAdminState,
  builds: benchBuilds,
  core: benchCore,
  events: benchEvents,
  redis: benchRedis,
  tail: benchTail,
  'over-limit': benchOverLimit,
  'state-file': benchStateFile,
  timeline: benchTimeline,
  'tracing-http': benchTracingHttp,
}
const summary: [string, boolean][] = []
for (const [name, run] of Object.entries(suites)) {
  if (only && !only.includes(name)) continue
  const result = await run()
  summary.push([name, result.ok])
}
console.log('\nSummary')
for (const [name, ok] of summary) console.log(`  ${ok ? 'met    ' : 'NOT met'}  ${name}`)
