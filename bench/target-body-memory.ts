/**
 * `verify` and `snapshot` against a target whose answer never ends (issue 31; docs/benchmarks.md has the figures): the
 * command's peak RSS (VmHWM, sampled every 20 ms) while the target streams `BODY_MB` MB, against the same command
 * answered at once with a 401 (what loading the command costs). Each run must stop at `--max-body-bytes` (16 MiB by
 * default) with the message naming it. The targets are node:http servers in this process on 127.0.0.1; run alone with
 * `npx tsx bench/target-body-memory.ts` (after `npm run build`).
 */

import { spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { LOAD_CORE, quick, ROOT, SERVER_NODE, table, tempDir, verdict } from './lib.js'

const MB = 1024 * 1024
const BODY_MB = quick ? 256 : 1024
const KEY = 'bench-target-key-0001'

/** Writes `bytes` of a JSON array in 64 KiB chunks as fast as the reader takes them, until it closes. */
function stream(res: ServerResponse, bytes: number): void {
  const chunk = Buffer.from(`${'{"id":1,"name":"x","categoryId":1},'.repeat(1872)}`)
  let left = bytes
  res.writeHead(200, { 'content-type': 'application/json' })
  res.write('[')
  const more = () => {
    while (left > 0 && !res.destroyed) {
      left -= chunk.length
      if (!res.write(chunk)) return
    }
    if (!res.destroyed) res.end(']')
  }
  res.on('drain', more)
  more()
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

/** Runs the built CLI with `args` to its end, on the load core; its exit code, stderr and peak RSS in MB. */
function runCommand(args: string[]): Promise<{ code: number | null; stderr: string; peakMb: number }> {
  // Not startPinned: these runs are meant to exit with 1 or 2, which it would report as failures.
  const child = spawn('taskset', ['-c', LOAD_CORE, SERVER_NODE, join(ROOT, 'dist/src/cli/main.js'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  let peakKb = 0
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0))
    } catch {
      // The process has ended between two samples.
    }
  }, 20)
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearInterval(sampler)
      resolve({ code, stderr, peakMb: peakKb / 1024 })
    })
  })
}

export async function targetBodyMemory(): Promise<{ rows: (string | number)[][]; ok: boolean }> {
  const endless = createServer((req, res) => {
    req.resume()
    stream(res, BODY_MB * MB)
  })
  const refusing = createServer((req, res) => {
    req.resume()
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"code":"unauthorized","message":"no","status":401}')
  })
  const [huge, quickNo] = [await listen(endless), await listen(refusing)]
  const rows: (string | number)[][] = []
  let ok = true
  const out = tempDir('petstore-bench-snapshot-')
  try {
    const commands: [string, (target: string) => string[]][] = [
      ['verify', (target) => ['verify', '--target', target, '--key', KEY]],
      ['snapshot', (target) => ['snapshot', '--target', target, '--key', KEY, '--out', join(out, 'state.json')]],
    ]
    for (const [name, args] of commands) {
      const baseline = await runCommand(args(quickNo))
      const attacked = await runCommand(args(huge))
      const named = attacked.stderr.includes('is larger than 16 MiB (--max-body-bytes)')
      const rowOk = named && attacked.peakMb <= baseline.peakMb + 64
      ok &&= rowOk
      rows.push(
        [`${name}: the target answers 401 at once (baseline)`, baseline.peakMb, 1, `exit ${baseline.code}`, ''],
        [
          `${name}: the target streams ${BODY_MB} MB`,
          attacked.peakMb,
          attacked.peakMb / baseline.peakMb,
          `exit ${attacked.code}${named ? ', names the 16 MiB cap' : ', NO message naming the cap'}`,
          `peak <= baseline + 64 MB: ${verdict(rowOk)}`,
        ],
      )
    }
    return { rows, ok }
  } finally {
    rmSync(out, { recursive: true, force: true })
    for (const server of [endless, refusing]) {
      server.closeAllConnections()
      server.close()
    }
  }
}

/** The table of `targetBodyMemory`, for bench/memory.ts. */
export async function benchTargetBodyMemory(): Promise<{ lines: string[]; ok: boolean }> {
  const { rows, ok } = await targetBodyMemory()
  const text = table('verify and snapshot against an endless answer, bounded by --max-body-bytes (peak RSS, VmHWM)', [
    ['run', 'peak RSS MB', 'x baseline', 'outcome', 'target'],
    ...rows,
  ])
  return { lines: [text], ok }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTargetBodyMemory()
