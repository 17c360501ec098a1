/**
 * `petstore-mock snapshot` (docs/snapshot.md): a deployment's pets, read through `GET /pets`, written as a state the
 * mock loads (`--state-file`, `PUT /__mock/state`, `petStore.restore`), so the mock serves the real catalogue. The
 * reading, and its rate-limit manners, live in snapshot-read.ts.
 */
import { access, constants, stat, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import type { PetRecord } from '../../schemas.js'
import { writeStateFile } from '../../server/state/file.js'
import { segmentsOf } from '../../server/state/log-read.js'
import { parseSnapshot, stringifySnapshot, type WorldSnapshot } from '../../snapshot.js'
import { PAGE_SIZE } from '../../spec.js'
import { DEFAULT_TARGET_BODY_BYTES } from '../../verify/read-body.js'
import { COMMANDS, type Command, commandLine, envName, oneOf, type Parsed, UsageError, wholeNumber } from '../parse.js'
import { ReadError, type ReadResult, readPets } from './snapshot-read.js'

const PREFIX = 'petstore-mock snapshot'
const FORMATS = ['state-file', 'world'] as const
type Format = (typeof FORMATS)[number]

interface SnapshotOptions {
  target: string
  key: string
  out: string
  format: Format
  max: number | undefined
  maxWaitMs: number
  maxBodyBytes: number
}

/** The base address as given, checked: http(s), ending with /v1, no query; returned without a trailing slash. */
function readTarget(text: string, label: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError(`${label} must be a URL like https://staging.example.com/v1, got ${JSON.stringify(text)}.`)
  }
  const path = url.pathname.replace(/\/+$/, '')
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash || !path.endsWith('/v1'))
    throw new UsageError(
      `${label} must be the http(s) base address ending with /v1 (e.g. https://staging.example.com/v1), got ${JSON.stringify(text)}.`,
    )
  if (url.username || url.password) throw new UsageError(`${label} must not hold a user or password: pass the API key with --key.`)
  return `${url.origin}${path}`
}

/** Checked here, without the key in the message: fetch would reject it with the value in its message. */
function readKey(text: string, label: string): string {
  if (!/^[\x21-\x7e]*$/.test(text)) throw new UsageError(`${label} must be printable ASCII without spaces (the key is not shown).`)
  return text
}

const OPTIONS = {
  target: { value: 'URL', help: 'Base address of the deployment, ending with /v1, e.g. https://staging.example.com/v1', read: readTarget },
  key: {
    value: 'KEY',
    oldEnv: ['PETSTORE_TARGET_KEY'],
    help: 'API key for the target, sent as a Bearer token; never printed',
    read: readKey,
  },
  out: { value: 'FILE', help: 'File to write (replaced if it exists); its folder must exist', read: (text: string) => resolve(text) },
  format: {
    value: 'FORMAT',
    default: 'state-file',
    help: 'state-file: the --state-file format; world: one world, the body PUT /__mock/state takes',
    read: oneOf(FORMATS),
  },
  max: { value: 'N', help: 'Write at most N pets: those with the N lowest ids', read: wholeNumber(1, 1_000_000) },
  'max-wait': {
    value: 'S',
    default: '120',
    help: 'Longest wait the target may ask for (rate limit), in seconds; a longer one exits 1',
    read: wholeNumber(0, 86_400),
  },
  'max-body-bytes': {
    value: 'N',
    default: `${DEFAULT_TARGET_BODY_BYTES}`,
    help: 'Bytes one answer may hold (16 MiB); a larger one exits 1',
    read: wholeNumber(1, 1024 * 1024 * 1024),
  },
} as const

export const SNAPSHOT: Command<typeof OPTIONS> = {
  name: PREFIX,
  options: OPTIONS,
  intro: [`${PREFIX}: ${COMMANDS.snapshot}`, '', 'Usage: petstore-mock snapshot --target URL --key KEY --out FILE [options]'],
  outro: [
    `Reads GET /pets?limit=${PAGE_SIZE.max} once per status (available, pending, sold) and once without one, merged by id.`,
    `The API shows no paging beyond limit (at most ${PAGE_SIZE.max}), so at most ${PAGE_SIZE.max} pets per status, about`,
    `${PAGE_SIZE.max * 4} distinct pets in all, can be read. Waits when the target says no request is left`,
    '(X-RateLimit-Remaining: 0) or answers 429 (Retry-After), so it never earns a ban. Progress goes to stderr.',
    '',
    'Exit codes: 0 written; 1 the target answered an error (401, 5xx, ...); 2 usage error or target unreachable.',
    '',
    'Examples:',
    `  ${envName({ name: PREFIX }, 'key')}=sk_live_... petstore-mock snapshot --target https://staging.example.com/v1 --out staging.json`,
    '  petstore-mock --state-file staging.json',
    '  petstore-mock snapshot --target http://127.0.0.1:4010/v1 --key test-pro --out small.json --max 20',
    '  petstore-mock snapshot --target http://127.0.0.1:4010/v1 --key test-pro --format world --out world.json',
    '  curl -X PUT --data-binary @world.json http://127.0.0.1:4010/__mock/state',
  ],
}

/** The required options, checked after the table has read each one given. */
function snapshotOptions({ values }: Parsed<typeof OPTIONS>): SnapshotOptions {
  const { target, key, out } = values
  if (target === undefined) throw new UsageError('--target URL is required: the base address ending with /v1.')
  if (!key) throw new UsageError(`--key KEY (or ${envName(SNAPSHOT, 'key')}) is required: an API key of the target.`)
  if (out === undefined) throw new UsageError('--out FILE is required: where to write the state.')
  const { format = 'state-file', max, 'max-wait': maxWait = 120, 'max-body-bytes': maxBodyBytes = DEFAULT_TARGET_BODY_BYTES } = values
  return { target, key, out, format, max, maxWaitMs: maxWait * 1000, maxBodyBytes }
}

/** Checks, before any request spends quota, that the file can be written and that no change log would be replayed over it. */
async function checkOut(options: SnapshotOptions): Promise<string | undefined> {
  const folder = dirname(options.out)
  if (!(await stat(folder).catch(() => undefined))?.isDirectory())
    return `--out ${options.out}: its folder ${folder} does not exist. Create it first (mkdir -p ${folder}).`
  if ((await stat(options.out).catch(() => undefined))?.isDirectory()) return `--out ${options.out} is a folder: name a file in it.`
  const writable = await access(folder, constants.W_OK)
    .then(() => true)
    .catch(() => false)
  if (!writable) return `--out ${options.out}: the folder ${folder} is not writable. Pick another --out.`
  if (options.format === 'world') return undefined
  const log = `${options.out}.log`
  const files = [...((await stat(log).catch(() => undefined))?.size ? [log] : []), ...segmentsOf(log).map((segment) => segment.file)]
  if (files.length > 0)
    return (
      `--out ${options.out} has a change log ${files.join(', ')} (a server using it as --state-file runs, or crashed): ` +
      `it would be replayed over the snapshot. Stop that server and delete ${files.length > 1 ? 'them' : 'it'}, or pick another --out.`
    )
  return undefined
}

/** The pets as a world's state: real time, no counters, nextId one above the largest id read (also when --max leaves it out). */
function worldOf(pets: ReadonlyMap<bigint, PetRecord>, max: number | undefined): WorldSnapshot {
  const sorted = [...pets.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const largest = sorted.at(-1)?.id ?? 0n
  const nextId = largest >= 1n ? largest + 1n : 1n
  const written = max === undefined ? sorted : sorted.slice(0, max)
  const result = parseSnapshot({ version: 1, pets: written, nextId, rateLimits: {}, clock: { frozenAt: null, offset: 0 } })
  // The pets passed the Pet schema and are unique by id, so this holds; checked so a broken file is never written.
  if (!result.ok) throw new ReadError(`the pets read make no valid state: ${result.message}`, 1)
  return result.snapshot
}

function summary(options: SnapshotOptions, world: WorldSnapshot, read: number, full: readonly string[]): string[] {
  const capped = world.pets.length < read ? `, the ${world.pets.length} lowest ids of ${read} read (--max)` : ''
  const file = options.out
  return [
    ...(full.length === 0
      ? []
      : [
          `  note: ${full.join(', ')} came back with ${PAGE_SIZE.max} pets, the API's page maximum: the target may hold more,`,
          '  which no request can reach (the spec shows no paging beyond limit).',
        ]),
    `${PREFIX}: wrote ${world.pets.length} pets${capped} (nextId ${world.nextId}) to ${file}.`,
    options.format === 'world'
      ? `  Load it: curl -X PUT --data-binary @${file} http://127.0.0.1:4010/__mock/state, or petStore.restore(readFileSync('${file}', 'utf8')).`
      : `  Start the mock from it: petstore-mock --state-file ${file}`,
  ]
}

/**
 * `petstore-mock snapshot ...`: resolves with the exit code.
 *
 * @example
 * process.exitCode = await run(['--target', 'https://staging.example.com/v1', '--out', 'staging.json'], process.env)
 */
export async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const options = commandLine(SNAPSHOT, argv, env, snapshotOptions)
  if (typeof options === 'number') return options
  // The key is never printed, not even where the target's own messages repeat it.
  const report = (line: string) => void process.stderr.write(`${line.split(options.key).join('<key>')}\n`)
  const fail = (message: string, code: number) => {
    report(`${PREFIX}: ${message}`)
    return code
  }
  const problem = await checkOut(options)
  if (problem !== undefined) return fail(problem, 2)
  report(
    `${PREFIX}: reading ${options.target}: GET /pets?limit=${PAGE_SIZE.max} per status and once without one ` +
      `(the API shows no paging, so at most ${PAGE_SIZE.max} pets per status, ~${PAGE_SIZE.max * 4} in all, are reachable).`,
  )
  let world: WorldSnapshot
  let read: ReadResult
  try {
    read = await readPets({ ...options, report })
    world = worldOf(read.pets, options.max)
  } catch (error) {
    if (error instanceof ReadError) return fail(error.message, error.exitCode)
    throw error
  }
  try {
    if (options.format === 'world') await writeFile(options.out, `${stringifySnapshot(world, 2)}\n`)
    else await writeStateFile(options.out, { version: 1, logSeq: 0, sessions: new Map([['default', world]]) })
  } catch (error) {
    return fail(`could not write --out ${options.out}: ${(error as Error).message}.`, 2)
  }
  for (const line of summary(options, world, read.pets.size, read.full)) report(line)
  return 0
}
