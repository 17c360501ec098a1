/**
 * Issue #13's figures. Journal memory: RSS of the server after 2,000 rejected 0.9 MiB POSTs in one session and a
 * journal read, against the same server idle (target: within 300 MB of idle, and still answering). Durable writes:
 * POST throughput with `--state-file` (every create logged before its answer) against without, round by round
 * (target: >= 0.8x), and with `--fsync` for information.
 */
import { join } from 'node:path'
import { BENCH_KEY, median, quick, ROOT, startMock, table, tempDir, verdict, waitFor, wrk } from './lib.js'

const auth = { Authorization: `Bearer ${BENCH_KEY}` }
const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000))

async function journalMemory(): Promise<{ row: (string | number)[]; ok: boolean }> {
  const port = 4330
  const proc = startMock(port)
  const base = `http://127.0.0.1:${port}`
  try {
    await waitFor(`${base}/v1/pets?limit=1`, { headers: auth })
    await settle()
    const idle = proc.rssMb()
    const body = `{"name":"${'x'.repeat(900 * 1024)}"}`
    const count = quick ? 300 : 2_000
    let rejected = 0
    // Four clients at a time, one session: every body is refused (no categoryId) and journaled.
    const send = async () => {
      for (;;) {
        if (rejected >= count) return
        rejected += 1
        const response = await fetch(`${base}/v1/pets`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', 'x-mock-session': 'abuse' },
          body,
        })
        await response.arrayBuffer()
        if (response.status !== 400) throw new Error(`[bench] expected 400, got ${response.status}`)
      }
    }
    await Promise.all([send(), send(), send(), send()])
    const read = await fetch(`${base}/__mock/requests?limit=1000`, { headers: { 'x-mock-session': 'abuse' } })
    const entries = ((await read.json()) as unknown[]).length
    await settle()
    const after = proc.rssMb()
    const answers = (await fetch(`${base}/v1/pets?limit=1`, { headers: auth })).status === 200
    const ok = after - idle <= 300 && answers
    return {
      row: [
        `${count.toLocaleString('en-US')} rejected 0.9 MiB POSTs, then a journal read (${entries} entries)`,
        idle,
        after,
        after - idle,
        answers ? 'yes' : 'NO',
        `<= 300 MB over idle: ${verdict(ok)}`,
      ],
      ok,
    }
  } finally {
    await proc.stop()
  }
}

async function durableWrites(): Promise<{ rows: (string | number)[][]; ok: boolean }> {
  const dir = tempDir('petstore-state-bench-')
  const servers = [
    { name: 'without --state-file', port: 4331, args: [] as string[] },
    { name: '--state-file', port: 4332, args: ['--state-file', join(dir, 'state.json')] },
    { name: '--state-file --fsync', port: 4333, args: ['--state-file', join(dir, 'fsync.json'), '--fsync'] },
  ]
  const procs = servers.map((server) => startMock(server.port, server.args))
  const seconds = quick ? 2 : 5
  const rounds = quick ? 2 : 5
  const script = join(ROOT, 'bench/servers/post.lua')
  try {
    for (const server of servers) await waitFor(`http://127.0.0.1:${server.port}/v1/pets?limit=1`, { headers: auth })
    const rps = servers.map(() => [] as number[])
    const ratios = servers.map(() => [] as number[])
    for (let round = 0; round < rounds; round++) {
      const results: number[] = []
      for (const [i, server] of servers.entries()) {
        const r = await wrk(`http://127.0.0.1:${server.port}/v1/pets`, seconds, { headers: auth, script })
        if (r.errors > 0) throw new Error(`[bench] ${server.name}: ${r.errors} errors`)
        results.push(r.rps)
        rps[i]?.push(r.rps)
      }
      for (const [i] of servers.entries()) ratios[i]?.push((results[i] as number) / (results[0] as number))
    }
    const ratio = median(ratios[1] as number[])
    const ok = ratio >= 0.8
    return {
      rows: servers.map((server, i) => [
        server.name,
        median(rps[i] as number[]),
        median(ratios[i] as number[]),
        i === 1 ? `>= 0.8: ${verdict(ok)}` : i === 0 ? '(baseline)' : '(information)',
      ]),
      ok,
    }
  } finally {
    await Promise.all(procs.map((proc) => proc.stop()))
  }
}

export async function benchAbuse(): Promise<{ lines: string[]; ok: boolean }> {
  console.log('\n# Under abuse (issue #13)')
  const memory = await journalMemory()
  const writes = await durableWrites()
  return {
    lines: [
      table('Journal memory bounded in bytes', [
        ['load', 'idle RSS MB', 'after RSS MB', 'growth MB', 'still answers', 'target'],
        memory.row,
      ]),
      table('POST /v1/pets with every create logged before its answer (rounds alternate)', [
        ['server', 'req/s (median)', 'x without (median of rounds)', 'target'],
        ...writes.rows,
      ]),
    ],
    ok: memory.ok && writes.ok,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAbuse()
