/**
 * Every code block of README.md and docs/*.md runs, as a user would run it, against the packed tarball installed in a
 * fresh project (./consumer.ts). A fenced block with a language (other than `text`) needs a tag on the line right
 * before its fence, an HTML comment GitHub does not show:
 *
 *   <!-- test: vitest -->        a whole vitest test file: run with the project's vitest; it must report passed tests
 *   <!-- test: jest [DIR] -->    a whole Jest test file (native ESM), run in the project (or its folder DIR) with the
 *                                config the page's `file` blocks wrote there
 *   <!-- test: node-test -->     a whole node:test file, run with `node --test`
 *   <!-- test: run -->           a program: JavaScript run with node, TypeScript compiled (strictly, below) then run;
 *                                `run stream` is a program that never ends: it must print, and is then stopped
 *   <!-- test: sh -->            shell commands, run with bash in the project (below)
 *   <!-- test: file PATH -->     a file a later block of the page needs, written to PATH in the project
 *   <!-- test: typecheck -->     a fragment that cannot run alone: compiled strictly, after the lines of a multi-line
 *                                tag (`<!-- test: typecheck` on its own line, the declarations, then `-->`)
 *   <!-- test: json -->          a JSON document shown as output: it must parse
 *   <!-- test: vitest-browser NAME -->  run by vitest-browser.test.ts (Chromium, Node 22 or later)
 *   <!-- test: skip: REASON -->  not run, only for a block that needs what this machine cannot start (Docker, a staging
 *                                deployment, a clone of the repository); the reason is in the tag
 *
 * TypeScript blocks (vitest, run, typecheck) are compiled together under a strict NodeNext tsconfig (pack.test.ts's
 * STRICT, skipLibCheck on: the package's own declarations are pack.test.ts's subject). Each block runs as written on
 * both lanes' msw (2 in the oldest, 3 in today's): `server.listen(onUnhandled('error'))` names the option both ways.
 *
 * Shell blocks: each runs on its own. Every port the block names (`127.0.0.1:4010`, `--port 4010`, `PETSTORE_PORT=4999`,
 * a config's `"port": 4010`) becomes a free port of 127.0.0.1, the same one for the same number within a page. A
 * command that starts a server (`npx petstore-mock` without a subcommand, `node …/cli/main.js`, any command ending in
 * `&`) is started in the background in its own process group and waited for (its health, or its port); a block that
 * talks to a port no server of its own listens on gets `petstore-mock --port <free>` (seed 1) there; both are stopped
 * by their process group's id when the block ends. `curl` gets `-sS --max-time 10` and reports each answer's status:
 * a status other than 2xx, 3xx, 401 or 429 (or no answer) fails the block; `curl -N` (a stream) is cut after 2 s. An
 * `npm i` installs into a new empty project, with the packed tarball for `petstore-mock` (the same command in a later
 * block finds that project). A comment at the end of a command is dropped (the commands above are wrapped).
 *
 * The wall clock of every process a block starts runs 1,000 times faster than real time (./fast-clock.mjs, through
 * NODE_OPTIONS; PETSTORE_DOCS_CLOCK_SPEED=1 runs them on real time): an example that counts requests in a rate window
 * must pin the mock's clock, or it crosses a minute turn and fails. The one exception is a block that runs newman
 * (runShell says why).
 *
 * `npm test` runs two kinds of block in one lane: PETSTORE_DOCS_SHARED=skip (set by scripts/test.mjs for the oldest
 * lane) leaves them to the Node 24 lane, today's Node, msw and vitest, which a user following the docs installs. The
 * shell blocks drive the server from its command line, whose code is the same on both Nodes (test/http's conformance
 * suite runs the server on the oldest); the ts-jest block runs on the same ts-jest, TypeScript and Jest in both lanes
 * (the plain Jest block, which runs in both, covers Jest on the oldest Node). The blocks whose outcome depends on the
 * lane's peers (vitest, msw, node:test, programs, types) run in both (decisions/027).
 *
 * Servers and requests on 127.0.0.1 only (the installs use the npm registry, as a user's do); bounded requests (the
 * docs' own loops: 61 requests at most); every process is stopped by its process group's id.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { dirname, join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../http/support.js'
import { type Consumer, copyConsumer, ROOT, STRICT, TSC } from './consumer.js'

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
]
const KINDS = ['vitest', 'jest', 'node-test', 'run', 'sh', 'file', 'typecheck', 'json', 'vitest-browser', 'skip'] as const
type Kind = (typeof KINDS)[number]

interface Block {
  page: string
  /** The line of the opening fence, counted from 1. */
  line: number
  lang: string
  code: string
  tag: { kind: Kind; arg: string; prelude: string } | undefined
  /** Why the tag cannot be read, when it cannot. */
  problem?: string
}

/** The fenced blocks of a markdown text and their tags; a block with no language, or `text`, needs none. */
function parseBlocks(page: string, text: string): Block[] {
  const lines = text.split('\n')
  const blocks: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(```+|~~~+)\s*([^\s`]*)/.exec(lines[i] as string)
    if (!open) continue
    const fence = open[1] as string
    let end = i + 1
    while (end < lines.length && !(lines[end] as string).startsWith(fence)) end++
    const block: Block = { page, line: i + 1, lang: open[2] ?? '', code: lines.slice(i + 1, end).join('\n'), tag: undefined }
    i = end
    if (block.lang === '' || block.lang === 'text') continue
    const header = readTag(lines, block.line - 2)
    if (header === undefined) block.problem = 'no `<!-- test: … -->` tag on the line before it'
    else {
      const [first = '', ...rest] = header.split('\n')
      const kind = (/^skip:/.test(first) ? 'skip' : first.split(/\s+/)[0]) as Kind
      const arg = kind === 'skip' ? first.slice('skip:'.length).trim() : first.slice(kind.length).trim()
      if (!KINDS.includes(kind)) block.problem = `an unknown tag "${first}" (known: ${KINDS.join(', ')})`
      else if (kind === 'skip' && arg === '') block.problem = 'a skip without its reason'
      else if (kind === 'file' && arg === '') block.problem = 'a file tag without its path'
      else block.tag = { kind, arg, prelude: rest.join('\n') }
    }
    blocks.push(block)
  }
  return blocks
}

/** The text of the `<!-- test: … -->` comment ending on line `at` (0-based), or undefined. */
function readTag(lines: string[], at: number): string | undefined {
  const single = /^<!-- test: (.*) -->$/.exec(lines[at] ?? '')
  if (single) return (single[1] as string).trim()
  if (lines[at] !== '-->') return undefined
  for (let start = at - 1; start >= 0; start--) {
    const first = /^<!-- test: (.*)$/.exec(lines[start] as string)
    if (first) return [(first[1] as string).trim(), ...lines.slice(start + 1, at)].join('\n')
    if ((lines[start] as string).includes('-->')) return undefined
  }
  return undefined
}

const BLOCKS = PAGES.flatMap((page) => parseBlocks(page, readFileSync(join(ROOT, page), 'utf8')))
const where = (block: Block) => `${block.page}:${block.line}`
/** A file name for a block, unique across pages. */
const slug = (block: Block) =>
  `${block.page
    .replace(/^docs\//, '')
    .replace(/\.md$/, '')
    .toLowerCase()}-${block.line}`

/** The shell blocks and the ts-jest block run in the Node 24 lane of `npm test` only (the header says why). */
const SHARED_IN_OTHER_LANE = process.env['PETSTORE_DOCS_SHARED'] === 'skip'
const sharedByLanes = ({ kind, arg }: Pick<NonNullable<Block['tag']>, 'kind' | 'arg'>): boolean =>
  kind === 'sh' || (kind === 'jest' && arg === 'ts-jest')
let consumer: Consumer
let project = ''
/** The environment of every process a block starts: the fast wall clock preloaded (the header says why). */
const BLOCK_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  PETSTORE_DOCS_CLOCK_ORIGIN: String(Date.now()),
  // The report card's blocks judge the reference clients on real waits: with the suite's other files beside it, late
  // timers stretch a 250 ms first wait by as much again, so they wait 1,000 ms here as in test/cli/check-client.test.ts
  // (read by examples/clients/pet-client.mjs; the verdicts the page states are the same).
  PET_CLIENT_BASE_DELAY_MS: '1000',
  NODE_OPTIONS:
    `${process.env['NODE_OPTIONS'] ?? ''} --import=${pathToFileURL(join(ROOT, 'test', 'package', 'fast-clock.mjs')).href}`.trim(),
}

beforeAll(async () => {
  consumer = await copyConsumer('petstore-mock-doc-blocks-')
  project = consumer.project
  await mkdir(join(project, 'blocks'))
})

afterAll(async () => {
  for (const group of groups) stopGroup(group)
  if (consumer) await rm(consumer.workDir, { recursive: true, force: true })
})

/** Process groups started and not yet stopped, by the id of their leader. */
const groups = new Set<number>()
function stopGroup(pid: number): void {
  groups.delete(pid)
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

interface Outcome {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a command in its own process group, stopped by its id after `ceiling` ms. */
function runGroup(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; ceiling?: number; until?: (stdout: string) => boolean } = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? project, env: options.env ?? BLOCK_ENV, detached: true })
    const pid = child.pid as number
    groups.add(pid)
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (options.until?.(stdout)) stopGroup(pid)
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const timer = setTimeout(() => stopGroup(pid), options.ceiling ?? 180_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      // What the command left running in its group (a `cmd &` it did not wait for) goes with it.
      stopGroup(pid)
      resolve({ code, stdout, stderr })
    })
  })
}

/** The free ports of one block, by the port its text names. */
class Ports {
  readonly map = new Map<string, number>()
  /** The block's text with each port it names replaced by a free one. */
  async substitute(text: string): Promise<string> {
    const pattern = /(127\.0\.0\.1:|--port\s+|PORT=|"port":\s*)(\d{4,5})\b/g
    for (const [, , port] of text.matchAll(pattern)) if (!this.map.has(port as string)) this.map.set(port as string, await freePort())
    return text.replace(pattern, (_, before: string, port: string) => `${before}${this.map.get(port)}`)
  }
  async of(port: string): Promise<number> {
    if (!this.map.has(port)) this.map.set(port, await freePort())
    return this.map.get(port) as number
  }
}

/** Waits until `port` answers: `/__mock/health` for a petstore-mock server, a TCP connection for anything else. */
async function waitForPort(port: number, isMock: boolean, exited: () => Outcome | undefined): Promise<void> {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const done = exited()
    if (done) throw new Error(`The server exited (${done.code}) before it listened on ${port}:\n${done.stdout}\n${done.stderr}`)
    const up = isMock
      ? await fetch(`http://127.0.0.1:${port}/__mock/health`).then(
          (response) => response.ok,
          () => false,
        )
      : await new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1')
          socket.on('connect', () => {
            socket.destroy()
            resolve(true)
          })
          socket.on('error', () => resolve(false))
        })
    if (up) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`Nothing listened on ${port} within 60 s.`)
}

/** Each page's free ports, so a `file` block's port is the one its page's later blocks use. */
const pagePorts = new Map<string, Ports>()
const portsOf = (block: Block): Ports => {
  if (!pagePorts.has(block.page)) pagePorts.set(block.page, new Ports())
  return pagePorts.get(block.page) as Ports
}

/** Starts a command in the background, in its own process group, and waits until its port answers. */
async function startBackground(command: string, port: number, env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn('bash', ['-c', command], { cwd: project, env, detached: true })
  const pid = child.pid as number
  groups.add(pid)
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output = (output + chunk).slice(-20_000)
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output = (output + chunk).slice(-20_000)
  })
  let exited: Outcome | undefined
  child.on('exit', (code) => {
    exited = { code, stdout: output, stderr: '' }
  })
  await waitForPort(port, /petstore-mock|cli\/main\.js/.test(command), () => exited)
  return pid
}

/**
 * A command that starts a petstore-mock server: `npx petstore-mock` (with `-y` and `-p PACKAGE`s before it, the docs'
 * command from an empty folder) or node's `…/cli/main.js`, without a subcommand.
 */
const startsMock = (command: string) =>
  /(?:^|\s)(?:npx(?:\s+-y)?(?:\s+-p\s+\S+)*\s+petstore-mock|\S*cli\/main\.js)(?!\s+(?:verify|snapshot|config|check-client|help|--help|--version)\b)(?:\s|$)/.test(
    command,
  )

/** The commands of a shell block: lines joined where one ends with `\`. */
function commands(code: string): string[] {
  return code
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '')
}

/** What a shell block's curl calls answered, from the line the `curl` wrapper writes for each. */
const CURL = `curl() { command curl -sS --max-time 10 -w '%{stderr}@@status %{http_code} %{method} %{url_effective}\\n' "$@"; }`
const acceptedStatus = (status: number) => (status >= 200 && status < 400) || status === 401 || status === 429

let installs = 0
/**
 * The project each install command made, by its text: the same command again (README.md's install is repeated in
 * docs/in-process.md and docs/browser.md) is the same install, so it is checked once and the later blocks find its
 * project, instead of three installs of the same packages (about 15 s of this file's time on two cores).
 */
const installed = new Map<string, string>()

/** Runs a shell block (the header comment has the rules). */
async function runShell(block: Block): Promise<void> {
  const ports = portsOf(block)
  const text = await ports.substitute(block.code)
  const mockPort = await ports.of('4010')
  const env = {
    // A client that compares the mock's clock with its own runs on real time, its server too: Postman's sandbox runs a
    // collection's tests in a V8 context of its own, which the preload cannot reach; `verify` reads X-RateLimit-Reset
    // as "near now" within 2 minutes, which a lag of 0.12 s between the answer and its reading crosses at 1,000x.
    ...(/\bnewman\b|petstore-mock verify\b/.test(block.code) ? process.env : BLOCK_ENV),
    npm_config_yes: 'true',
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  }
  const listening = new Set<number>()
  const started: number[] = []
  const pending: string[] = []
  const problems: string[] = []
  const flush = async () => {
    if (pending.every((line) => line.trim().startsWith('#'))) return
    const script = pending.splice(0).join('\n')
    // A port the commands talk to with no server on it gets the harness's petstore-mock (seed 1, as the docs assume).
    for (const [, port] of script.matchAll(/127\.0\.0\.1:(\d+)/g)) {
      if (listening.has(Number(port))) continue
      listening.add(Number(port))
      started.push(await startBackground(`node_modules/.bin/petstore-mock --port ${port} --log silent`, Number(port), env))
    }
    const outcome = await runGroup('bash', ['-c', `set -eo pipefail\n${CURL}\n${script}`], { env, ceiling: 300_000 })
    const statuses = [...outcome.stderr.matchAll(/^@@status (\d+) (\S+) (\S+)$/gm)]
    for (const [, status, method, url] of statuses) {
      if (!acceptedStatus(Number(status))) problems.push(`${method} ${url} answered ${status}`)
    }
    if (outcome.code !== 0) problems.push(`exited with ${outcome.code}:\n${outcome.stdout.slice(-4000)}\n${outcome.stderr.slice(-4000)}`)
  }
  try {
    for (let command of commands(text)) {
      // A comment at the end of a command goes, so the commands wrapped below keep what follows it.
      command = command.replace(/\s+#(?:\s.*)?$/, '')
      if (/^npm (i|install) /.test(command)) {
        // A user's install, into a new empty project, with the packed tarball for petstore-mock.
        const earlier = installed.get(command)
        const dir = earlier ?? join(consumer.workDir, `install-${++installs}`)
        const check = `test -f ${dir}/node_modules/petstore-mock/package.json`
        if (earlier === undefined) {
          installed.set(command, dir)
          await mkdir(dir)
          await writeFile(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n')
          command = `(cd ${dir} && ${command.replace(/(\s)petstore-mock(\s|$)/, `$1${consumer.tarball}$2`)} && ${check})`
        } else command = check
      }
      if (/curl -N/.test(command)) command = `${command.replace('curl -N', 'curl -N --max-time 2')} || [ $? -eq 28 ]`
      const background = /&\s*$/.test(command)
      if (startsMock(command) || background) {
        await flush()
        const line = command.replace(/&\s*$/, '')
        const explicit = /(?:--port\s+|PORT=)(\d+)/.exec(line)?.[1]
        const port = explicit ? Number(explicit) : mockPort
        listening.add(port)
        started.push(await startBackground(explicit ? line : `PETSTORE_PORT=${port} ${line}`, port, env))
      } else pending.push(command)
    }
    await flush()
  } finally {
    for (const pid of started) stopGroup(pid)
  }
  expect(problems).toEqual([])
}

let typeErrors: Promise<Map<Block, string[]>> | undefined
const TS_KINDS = new Set<Kind>(['vitest', 'run', 'typecheck'])
const isTypeScript = (block: Block) => block.lang === 'ts' && block.tag !== undefined && TS_KINDS.has(block.tag.kind)
/** A block's source file in the project, relative to it. */
const sourceOf = (block: Block) => {
  const ext = block.lang === 'ts' ? 'ts' : 'js'
  return `blocks/${slug(block)}${block.tag?.kind === 'vitest' || block.tag?.kind === 'jest' || block.tag?.kind === 'node-test' ? '.test' : ''}.${ext}`
}
const preludeLines = (block: Block) => (block.tag?.prelude ? block.tag.prelude.split('\n').length : 0)

/** Every TypeScript block compiled in one strict program (emitted to dist/ for the `run` blocks), its errors by block. */
function typeCheckAll(): Promise<Map<Block, string[]>> {
  typeErrors ??= (async () => {
    const blocks = BLOCKS.filter(isTypeScript)
    for (const block of blocks) await writeSource(block)
    await writeFile(
      join(project, 'tsconfig.blocks.json'),
      JSON.stringify({
        compilerOptions: { ...STRICT, skipLibCheck: true, outDir: 'dist', rootDir: '.' },
        files: blocks.map(sourceOf),
      }),
    )
    const { stdout, stderr } = await runGroup(process.execPath, [TSC, '-p', 'tsconfig.blocks.json'])
    const errors = new Map<Block, string[]>(blocks.map((block) => [block, []]))
    for (const [, file, line, message] of `${stdout}${stderr}`.matchAll(/^(blocks\/\S+?)\((\d+),\d+\): (error .*)$/gm)) {
      const block = blocks.find((candidate) => sourceOf(candidate) === file)
      if (!block) throw new Error(`tsc: ${file}(${line}): ${message}`)
      errors.get(block)?.push(`${block.page}:${block.line + Number(line) - preludeLines(block)}: ${message}`)
    }
    return errors
  })()
  return typeErrors
}

interface FileReport {
  name: string
  status: string
  message?: string
  assertionResults: { title: string; status: string; failureMessages: string[] }[]
}
let vitestReports: Promise<FileReport[]> | undefined
/** Every vitest block run by one `vitest run` in the project, its JSON report read back. */
function vitestAll(): Promise<FileReport[]> {
  vitestReports ??= (async () => {
    const files: string[] = []
    for (const block of BLOCKS.filter((candidate) => candidate.tag?.kind === 'vitest')) files.push(await writeSource(block))
    const report = join(project, 'vitest-report.json')
    const vitest = join(project, 'node_modules', 'vitest', 'vitest.mjs')
    const outcome = await runGroup(process.execPath, [vitest, 'run', '--reporter=json', `--outputFile.json=${report}`, ...files])
    const text = await readFile(report, 'utf8').catch(() => {
      throw new Error(`vitest wrote no report:\n${outcome.stdout}\n${outcome.stderr}`)
    })
    return (JSON.parse(text) as { testResults: FileReport[] }).testResults
  })()
  return vitestReports
}

/** Writes a block's source into the project: its prelude, then its code with the lane's msw name and the page's ports. */
async function writeSource(block: Block): Promise<string> {
  const code = await portsOf(block).substitute(block.code)
  const text = block.tag?.prelude ? `${block.tag.prelude}\n${code}\n` : `${code}\n`
  await writeFile(join(project, sourceOf(block)), text)
  return sourceOf(block)
}

/** Runs a program block with node, with the harness's server on each 127.0.0.1 port it names. */
async function runProgram(block: Block, file: string): Promise<Outcome> {
  const ports = [
    ...new Set([...readFileSync(join(project, file), 'utf8').matchAll(/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1]))),
  ]
  const started: number[] = []
  try {
    for (const port of ports)
      started.push(await startBackground(`node_modules/.bin/petstore-mock --port ${port} --log silent`, port, BLOCK_ENV))
    if (block.tag?.arg !== 'stream') return await runGroup(process.execPath, [file], { ceiling: 60_000 })
    // A program that never ends: stopped once it prints, or after 10 s.
    const outcome = await runGroup(process.execPath, [file], { ceiling: 10_000, until: (stdout) => stdout !== '' })
    return { ...outcome, code: outcome.stdout === '' ? outcome.code : 0 }
  } finally {
    for (const pid of started) stopGroup(pid)
  }
}

const RUNNERS: Record<Exclude<Kind, 'skip' | 'vitest-browser'>, (block: Block) => Promise<void>> = {
  async vitest(block) {
    if (isTypeScript(block)) expect((await typeCheckAll()).get(block)).toEqual([])
    const file = join(project, sourceOf(block))
    const result = (await vitestAll()).find((report) => report.name === file)
    expect(result, `vitest ran ${relative(project, file)}`).toBeDefined()
    const failed = result?.assertionResults.filter((test) => test.status !== 'passed') ?? []
    expect(
      failed.map((test) => `${test.title}: ${test.failureMessages.join('\n')}`),
      result?.message,
    ).toEqual([])
    expect(result?.assertionResults.length).toBeGreaterThan(0)
  },
  async jest(block) {
    // `jest DIR`: the test file goes into DIR and Jest runs there, with the config the page's `file` blocks put there.
    const dir = join(project, block.tag?.arg ?? '')
    const file = join(dir, `${slug(block)}.test.${block.lang === 'ts' ? 'ts' : 'js'}`)
    await writeFile(file, `${block.code}\n`)
    const jest = join(project, 'node_modules', 'jest', 'bin', 'jest.js')
    const { code, stdout, stderr } = await runGroup(process.execPath, ['--experimental-vm-modules', jest, '--ci', relative(dir, file)], {
      cwd: dir,
    })
    expect(code, `${stdout}\n${stderr}`).toBe(0)
    expect(stderr).toMatch(/Tests:\s+(\d+) passed, \1 total/)
    // A TypeScript suite's tsconfig (ts-jest) also passes `tsc` as the user runs it, on this lane's TypeScript (7 in
    // today's lane: since 6, `types` no longer takes in every @types package, and Jest's declarations need Node's).
    if (block.lang === 'ts' && existsSync(join(dir, 'tsconfig.json'))) {
      const checked = await runGroup(process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit'], { cwd: dir })
      expect(checked.code, `${checked.stdout}\n${checked.stderr}`).toBe(0)
    }
  },
  async 'node-test'(block) {
    const file = await writeSource(block)
    const { code, stdout, stderr } = await runGroup(process.execPath, ['--test', '--test-reporter=spec', file])
    expect(code, `${stdout}\n${stderr}`).toBe(0)
    expect(stdout).toMatch(/pass [1-9]/)
  },
  async run(block) {
    let file: string
    if (isTypeScript(block)) {
      expect((await typeCheckAll()).get(block)).toEqual([])
      file = join('dist', sourceOf(block).replace(/\.ts$/, '.js'))
    } else file = await writeSource(block)
    const { code, stdout, stderr } = await runProgram(block, file)
    expect(code, `${stdout}\n${stderr}`).toBe(0)
  },
  sh: runShell,
  async file(block) {
    const code = await portsOf(block).substitute(block.code)
    await mkdir(dirname(join(project, block.tag?.arg ?? '')), { recursive: true })
    await writeFile(join(project, block.tag?.arg ?? ''), `${code}\n`)
  },
  async typecheck(block) {
    expect((await typeCheckAll()).get(block)).toEqual([])
  },
  async json(block) {
    expect(() => JSON.parse(block.code)).not.toThrow()
  },
}

describe('the tags', () => {
  it('are on every code block of README.md and docs/*.md, and known', () => {
    expect(
      BLOCKS.filter((block) => block.problem).map((block) => `${where(block)}: a \`${block.lang}\` block with ${block.problem}`),
    ).toEqual([])
  })

  it('are read, so the runs below run something', () => {
    expect(BLOCKS.filter((block) => block.tag?.kind === 'vitest').map((block) => block.page)).toContain('README.md')
    expect(BLOCKS.filter((block) => block.tag && block.tag.kind !== 'skip').length).toBeGreaterThan(30)
  })

  it('are required: a block without one is named by its file and line', () => {
    const blocks = parseBlocks('x.md', '# x\n\n```sh\nls\n```\n\n<!-- test: sh -->\n```sh\nls\n```\n\n```text\nout\n```\n')
    expect(blocks.map((block) => [where(block), block.problem ?? block.tag?.kind])).toEqual([
      ['x.md:3', 'no `<!-- test: … -->` tag on the line before it'],
      ['x.md:8', 'sh'],
    ])
  })

  it('carry the declarations of a typecheck fragment, and a skip its reason', () => {
    const [fragment, skipped] = parseBlocks(
      'x.md',
      '<!-- test: typecheck\nconst a = 1\n-->\n```ts\na\n```\n<!-- test: skip: needs Docker -->\n```sh\ndocker ps\n```\n',
    )
    expect(fragment?.tag).toEqual({ kind: 'typecheck', arg: '', prelude: 'const a = 1' })
    expect(skipped?.tag).toEqual({ kind: 'skip', arg: 'needs Docker', prelude: '' })
  })
})

for (const page of PAGES) {
  const blocks = BLOCKS.filter((block) => block.page === page && block.tag && block.tag.kind !== 'vitest-browser')
  if (blocks.length === 0) continue
  describe(page, () => {
    for (const block of blocks) {
      const { kind, arg } = block.tag as NonNullable<Block['tag']>
      if (kind === 'skip') it.skip(`${where(block)} ${block.lang}: ${arg}`, () => {})
      else if (SHARED_IN_OTHER_LANE && sharedByLanes({ kind, arg }))
        it.skip(`${where(block)} ${kind}: run in the Node 24 lane (PETSTORE_DOCS_SHARED=skip)`, () => {})
      else if (kind !== 'vitest-browser') it(`${where(block)} ${kind}${arg ? ` ${arg}` : ''}`, () => RUNNERS[kind](block))
    }
  })
}
