/**
 * `npm run bench -- --only=memory`. Target 4 (issue #8): 1,000 idle sessions of the standalone server within 300 MB RSS;
 * 100,000 pets within 150 MB RSS. `--proxy` under upstream bodies far over its cap (bench/proxy-memory.ts);
 * `verify` and `snapshot` against an endless answer (bench/target-body-memory.ts). Then what a
 * world keeps in-process per pet and of large bodies, the budgets of the memory regressions (bench/memory-in-process.ts).
 */
import { BENCH_KEY, startMock, table, verdict, waitFor } from './lib.js'
import { benchMemoryInProcess } from './memory-in-process.js'
import { benchProxyMemory } from './proxy-memory.js'
import { benchTargetBodyMemory } from './target-body-memory.js'

const auth = { Authorization: `Bearer ${BENCH_KEY}` }
const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000))

async function rss(args: string[], load: (base: string) => Promise<void>): Promise<number> {
  const port = 4300 + Math.floor(Math.random() * 500)
  const proc = startMock(port, args)
  try {
    const base = `http://127.0.0.1:${port}`
    await waitFor(`${base}/v1/pets?limit=1`, { headers: auth })
    await load(base)
    await settle()
    return proc.rssMb()
  } finally {
    await proc.stop()
  }
}

export async function benchMemory(): Promise<{ lines: string[]; ok: boolean }> {
  console.log('\n# Memory (RSS of the server process after the load settles)')
  const idle = await rss([], async () => {})
  const sessions = await rss([], async (base) => {
    for (let i = 0; i < 1000; i++) {
      const response = await fetch(`${base}/v1/pets?limit=1`, { headers: { ...auth, 'X-Mock-Session': `idle-${i}` } })
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`[bench] session ${i}: ${response.status}`)
    }
  })
  const large = await rss(['--pets', '100000'], async (base) => {
    await (await fetch(`${base}/v1/pets/100000`, { headers: auth })).arrayBuffer()
  })
  const sessionsOk = sessions <= 300
  const largeOk = large <= 150
  const servers = table('Target 4b: memory', [
    ['server', 'RSS MB', 'target'],
    ['default world only (reference)', idle, ''],
    ['1,000 idle sessions (X-Mock-Session)', sessions, `<= 300 MB: ${verdict(sessionsOk)}`],
    ['100,000 pets', large, `<= 150 MB: ${verdict(largeOk)}`],
  ])
  const proxy = await benchProxyMemory()
  const target = await benchTargetBodyMemory()
  const inProcess = await benchMemoryInProcess()
  return {
    lines: [servers, ...proxy.lines, ...target.lines, ...inProcess.lines],
    ok: sessionsOk && largeOk && proxy.ok && target.ok && inProcess.ok,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchMemory()
