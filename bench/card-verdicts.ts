/**
 * How sure the report card's timing verdicts are: many simulated cards of `retry.backoff` and `retry.jitter`, each
 * judged by the card's own judges (the checks of src/check/catalogue.ts), for clients whose waits are known (ky's and
 * got's documented defaults, urllib3's Retry, the reference clients, full and equal jitter, constant and random waits)
 * under two kinds of noise. Prints the pass rate of each check per client and noise, then the false-pass and
 * false-fail rates of the clients whose verdict is clear-cut: the figures docs/check-client.md gives
 * ("How sure a verdict is").
 *
 *   npx tsx bench/card-verdicts.ts [--cards=10000] [--seed=1]
 *
 * A simulated card replays the card's runs on a timeline: run n starts at its `startAfterMs` plus the client's
 * start-up; the world answers each request 1 ms after it arrives; the client waits its back-off, which starts when it
 * has the answer and ends when its timer fires (late by the noise); the first retry also runs the client's retry code
 * for the first time (20-60 ms of work, stretched by how busy the machine is). The journal entries of each run are then
 * judged as the card judges a real client's.
 * - quiet: a timer 0-5 ms late, 40-80 ms to start.
 * - loaded: the machine 1 to 4 times oversubscribed for the whole card (the first retry's work stretched as much), a
 *   timer 0-20 ms late (80%), 20-100 ms (15%) or 100 ms to 1 s (5%, Pareto); the server records an arrival up to 50 ms
 *   late; and in one card of four the whole machine stalls for 100-500 ms: every timer that falls due meanwhile fires
 *   when it ends ("all runs late together", as far as their timers overlap).
 * - overloaded: the same, with every timer's lateness stretched as much as the first retry's work (up to 4 times:
 *   a 2-core machine at a load average of 8 to 15, as the one this was written on).
 */
import { CHECKS } from '../src/check/catalogue.js'
import type { CheckRun, RunEvidence, TaskOutcome } from '../src/check/types.js'
import type { JournalEntry } from '../src/journal/journal.js'

const arg = (name: string, fallback: number) => Number(process.argv.find((one) => one.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)
const CARDS = arg('cards', 10_000)

/** mulberry32: the same table for the same seed. */
let state = arg('seed', 1) >>> 0
const random = (): number => {
  state = (state + 0x6d2b79f5) >>> 0
  let t = state
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const uniform = (low: number, high: number) => low + (high - low) * random()
const pareto = (least: number, alpha: number) => least / (1 - random()) ** (1 / alpha)

type Verdict = 'pass' | 'fail' | undefined
interface Model {
  readonly name: string
  /** How many retries the client makes at most. */
  readonly retries: number
  /** The wait before retry `n` (from 1), in ms. */
  wait(n: number): number
  /** Its first retry costs no more than the others (a compiled client, or one whose retry code already ran). */
  readonly warm?: boolean
  /** The verdicts its documented waits call for; `undefined` where 20 runs cannot tell (not clear-cut). */
  readonly backoff: Verdict
  readonly jitter: Verdict
}

const MODELS: readonly Model[] = [
  { name: 'ky defaults: 0.3 s * 2^(n-1)', retries: 2, wait: (n) => 300 * 2 ** (n - 1), backoff: 'pass', jitter: 'fail' },
  {
    name: 'got defaults: 1 s * 2^(n-1) + 0-100 ms',
    retries: 2,
    wait: (n) => 1000 * 2 ** (n - 1) + uniform(0, 100),
    backoff: 'pass',
    jitter: 'fail',
  },
  {
    name: 'urllib3 Retry(backoff_factor=0.5): 0, 1, 2 s',
    retries: 3,
    wait: (n) => (n === 1 ? 0 : 500 * 2 ** (n - 1)),
    backoff: 'pass',
    jitter: 'fail',
  },
  {
    name: 'reference client: equal jitter from 250 ms',
    retries: 3,
    wait: (n) => equal(250 * 2 ** (n - 1)),
    backoff: 'pass',
    jitter: 'pass',
  },
  { name: 'no-jitter reference: 250, 500, 1000 ms', retries: 3, wait: (n) => 250 * 2 ** (n - 1), backoff: 'pass', jitter: 'fail' },
  { name: 'equal jitter from 300 ms, 2 retries', retries: 2, wait: (n) => equal(300 * 2 ** (n - 1)), backoff: undefined, jitter: 'pass' },
  {
    name: 'ky jitter: true (full jitter), 2 retries',
    retries: 2,
    wait: (n) => uniform(0, 300 * 2 ** (n - 1)),
    backoff: undefined,
    jitter: 'pass',
  },
  {
    name: 'full jitter from 500 ms, 3 retries',
    retries: 3,
    wait: (n) => uniform(0, 500 * 2 ** (n - 1)),
    backoff: undefined,
    jitter: 'pass',
  },
  {
    name: 'ky 80-120% jitter: 0.3 s * 2^(n-1)',
    retries: 2,
    wait: (n) => 300 * 2 ** (n - 1) * uniform(0.8, 1.2),
    backoff: undefined,
    jitter: undefined,
  },
  { name: 'constant 500 ms', retries: 3, wait: () => 500, backoff: 'fail', jitter: 'fail' },
  { name: 'constant 500 ms, warm first retry', retries: 3, wait: () => 500, warm: true, backoff: 'fail', jitter: 'fail' },
  { name: 'random 0-1000 ms, 3 retries', retries: 3, wait: () => uniform(0, 1000), backoff: 'fail', jitter: 'pass' },
  { name: 'random 0-1000 ms, 2 retries', retries: 2, wait: () => uniform(0, 1000), backoff: 'fail', jitter: 'pass' },
  { name: 'linear: 500, 1000, 1500 ms', retries: 3, wait: (n) => 500 * n, backoff: undefined, jitter: 'fail' },
]

/** Equal jitter: half the back-off fixed, half random. */
function equal(full: number): number {
  return full / 2 + uniform(0, full / 2)
}

interface Noise {
  /** How oversubscribed the machine is for this card (stretches the first retry's work). */
  busy(): number
  startup(): number
  /** How late a timer fires. */
  late(): number
  /** How late the server records an arrival. */
  lag(): number
  /** The chance of a stall of the whole machine in a card. */
  readonly stall: number
  /** Timers late in proportion to how busy the machine is, too. */
  readonly lateScales: boolean
}

const loaded: Noise = {
  busy: () => uniform(1, 4),
  startup: () => uniform(50, 400),
  late: () => {
    const draw = random()
    return draw < 0.8 ? uniform(0, 20) : draw < 0.95 ? uniform(20, 100) : Math.min(pareto(100, 1.5), 1000)
  },
  lag: () => (random() < 0.9 ? uniform(0, 5) : uniform(5, 50)),
  stall: 0.25,
  lateScales: false,
}
const NOISES: Record<'quiet' | 'loaded' | 'overloaded', Noise> = {
  quiet: {
    busy: () => 1,
    startup: () => uniform(40, 80),
    late: () => uniform(0, 5),
    lag: () => uniform(0, 1),
    stall: 0,
    lateScales: false,
  },
  loaded,
  overloaded: { ...loaded, lateScales: true },
}

const RUNS = (CHECKS.find((check) => check.id === 'retry.backoff')?.runs ?? []) as readonly CheckRun[]
const FAULTS = 3

function entry(seq: number, arrived: number, status: number): JournalEntry {
  return { seq, arrival: seq, at: arrived + 1, durationMs: 1, method: 'GET', path: '/v1/pets', query: '', status } as JournalEntry
}

/** One card's runs, simulated. */
function simulate(model: Model, noise: Noise): RunEvidence[] {
  const stalls: [number, number][] = []
  if (random() < noise.stall) {
    const from = uniform(0, 4000)
    stalls.push([from, from + uniform(100, 500)])
  }
  const resume = (t: number) => stalls.find(([from, to]) => t >= from && t < to)?.[1] ?? t
  const busy = noise.busy()
  return RUNS.map((run) => {
    let sent = resume((run.startAfterMs ?? 0) + noise.startup())
    const entries: JournalEntry[] = []
    const retries = Math.min(model.retries, FAULTS)
    for (let n = 0; n <= retries; n++) {
      if (n > 0) {
        const answered = (entries[n - 1] as JournalEntry).at + uniform(1, 3)
        const firstTime = n === 1 && !model.warm ? busy * uniform(20, 60) + uniform(0, noise === NOISES.quiet ? 5 : 50) : 0
        sent = resume(answered + model.wait(n) + (noise.lateScales ? busy : 1) * noise.late() + firstTime)
      }
      entries.push(entry(n + 1, resume(sent + noise.lag()), n < FAULTS ? 503 : 200))
    }
    const outcome: TaskOutcome = retries < FAULTS ? { ended: 'error', ms: 0, message: '503' } : { ended: 'result', ms: 0 }
    return { run, outcome, entries }
  })
}

const judge = (id: string) => CHECKS.find((check) => check.id === id)?.judge as (runs: readonly RunEvidence[]) => { status: string }
const judges = { backoff: judge('retry.backoff'), jitter: judge('retry.jitter') }
const percent = (count: number) => `${((100 * count) / CARDS).toFixed(2)}%`

const rows: string[][] = []
/** Per clear-cut verdict: how many cards got it wrong, per noise. */
const wrong = new Map<string, string[]>()
for (const [noiseName, noise] of Object.entries(NOISES)) {
  for (const model of MODELS) {
    const passed = { backoff: 0, jitter: 0 }
    for (let card = 0; card < CARDS; card++) {
      const runs = simulate(model, noise)
      if (judges.backoff(runs).status === 'passed') passed.backoff++
      if (judges.jitter(runs).status === 'passed') passed.jitter++
    }
    const cell = (check: 'backoff' | 'jitter') => `${percent(passed[check])}${model[check] ? ` (${model[check]})` : ''}`
    rows.push([model.name, noiseName, cell('backoff'), cell('jitter')])
    for (const check of ['backoff', 'jitter'] as const) {
      const expected = model[check]
      if (!expected) continue
      const key = `retry.${check}\t${model.name}\t${expected === 'pass' ? 'false fail' : 'false pass'}`
      const off = expected === 'pass' ? CARDS - passed[check] : passed[check]
      wrong.set(key, [...(wrong.get(key) ?? []), off === 0 ? '0' : `${off} (${percent(off)})`])
    }
  }
}

const print = (header: string[], body: string[][]) => {
  const widths = header.map((cell, i) => Math.max(cell.length, ...body.map((row) => (row[i] as string).length)))
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i] as number)).join(' | ')} |`
  console.log([line(header), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join('\n'))
}
console.log(`${CARDS} simulated cards per client and noise (${RUNS.length} runs each); (pass)/(fail): the documented verdict.\n`)
print(['client', 'noise', 'retry.backoff passed', 'retry.jitter passed'], rows)
console.log(`\nCards of ${CARDS} whose clear-cut verdict the judges got wrong:\n`)
print(
  ['check', 'client', 'error', ...Object.keys(NOISES)],
  [...wrong].map(([key, counts]) => [...key.split('\t'), ...counts]),
)
