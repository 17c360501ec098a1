/**
 * Issue #18: the slowest creates while one world grows past a million pets. A `Map` grows by building its whole table
 * anew at twice the size, in one go: the map of pets by id did so at 1,048,576 pets in one create of 70 ms, and every
 * request behind it waited. In-process, through the standalone server's world (the journal on), each create timed
 * alone: the slowest of the 2,000 around the world's 1,048,576th pet, the slowest of all (full collections fall
 * anywhere, in every build), and how many took over 10 ms. With `--baseline=DIR`, another checkout's build,
 * alternating. The time per create is `--only=core`'s (each build in a process of its own): here the builds share one
 * process and each pays for the collection of the world measured before it.
 *
 *   npm run bench -- --only=slow-creates [--baseline=/tmp/before]     (about 30 s; 1 minute with a baseline)
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createPetStoreServer } from '../src/http.js'
import { quick, table } from './lib.js'
import { type CreateServer, mockCreates } from './pet-bytes.js'

const BASELINE = process.argv.find((arg) => arg.startsWith('--baseline='))?.slice(11)
/** The default world's seeded pets: its 2^20th pet is this create's. */
const SEEDED = 50
const DOUBLING = 2 ** 20 - SEEDED
const COUNT = quick ? DOUBLING + 10_000 : 1_200_000
const ROUNDS = quick ? 1 : 2

function slowest(create: CreateServer): { around: number; all: number; over10: number } {
  const handle = mockCreates('', create)
  let around = 0
  let all = 0
  let over10 = 0
  for (let i = 0; i < COUNT; i++) {
    const before = performance.now()
    handle(i)
    const ms = performance.now() - before
    if (ms > all) all = ms
    if (ms > 10) over10 += 1
    if (Math.abs(i - DOUBLING) <= 1_000 && ms > around) around = ms
  }
  return { around, all, over10 }
}

export async function benchSlowCreates(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(`\n# The slowest creates while a world grows to ${COUNT.toLocaleString('en-US')} pets (in-process, each create timed)`)
  const builds: [string, CreateServer][] = [['this build', createPetStoreServer]]
  if (BASELINE) {
    const other = (await import(pathToFileURL(join(BASELINE, 'dist/src/http.js')).href)) as { createPetStoreServer: CreateServer }
    builds.push([`${BASELINE} build`, other.createPetStoreServer])
  }
  const rows: (string | number)[][] = [
    ['build (round)', 'slowest of the 2,000 around pet 1,048,576, ms', 'slowest of all, ms', 'creates over 10 ms'],
  ]
  for (let round = 1; round <= ROUNDS; round++)
    for (const [name, create] of builds) {
      const { around, all, over10 } = slowest(create)
      rows.push([`${name} (${round})`, around, all, String(over10)])
    }
  // Information, no target: the tail bench (--only=tail) holds the targets.
  return { lines: [table('Slowest creates (a full collection may fall in any row)', rows)], ok: true }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSlowCreates()
