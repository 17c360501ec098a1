#!/usr/bin/env node
/**
 * The current-runtime lane (decisions/008-msw-3-readiness.md, decisions/012-current-runtimes-in-ci.md). msw 3 needs
 * Node 22+, the machines run Node 20, so this script fetches a real Node from the npm registry (the package
 * `node-<platform>-<arch>@<version>`, whose bin/node is the official binary; no install script), copies the
 * repository with its node_modules and its built dist/ into a temporary folder, installs msw 3 there, and with that
 * Node:
 *   1. type-checks src/ against msw 3 (tsc -p tsconfig.build.json --noEmit), beside
 *   2. vitest on one of two selections:
 *      - default: the shared conformance suite in-process (test/in-process/conformance.test.ts);
 *      - --all (what `npm test` runs: today's lane, scripts/lanes.mjs): every vitest project, the `package` one
 *        included when PETSTORE_TARBALL names the tarball `npm test` packed (it is installed with msw 3 and vitest 5;
 *        without it the package test would pack and install with package.json's msw 2, so it is left out);
 * then prints a summary (Node and msw versions, files and tests per project, times), exits 1 when anything failed
 * and removes the temporary folder (also on SIGINT/SIGTERM). The repository itself is never changed.
 * The prepared Node and node_modules (the repository's, with msw 3 and vitest 5) are kept for the next run in
 * $TMPDIR/petstore-mock-lane-cache, under a key of both lock files and the versions asked for: a run that finds them
 * copies only the sources (`--fresh` prepares them again). Copying 600 MB of node_modules and installing into it was a
 * minute of a busy machine's every `npm test`.
 * Linux and macOS (npm has no Windows Node binary package of that shape).
 *
 *   npm run test:msw3                    # Node 22 (msw 3's minimum), msw 3: conformance suite, about a minute
 *   npm run test:node24                  # = --node 24 --all, today's lane of `npm test`
 *   npm run test:msw3 -- --node 26 --msw 3.0.5 --all --keep
 *   npm run test:msw3 -- --vitest repo     # the repository's vitest instead of vitest 5
 *   npm run test:node24 -- --fresh         # without the prepared copy of the last run
 */
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { constants, tmpdir } from 'node:os'
import { basename, delimiter, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    node: { type: 'string', default: '22' },
    msw: { type: 'string', default: '3' },
    vitest: { type: 'string', default: '5' },
    all: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    fresh: { type: 'boolean', default: false },
  },
})

const started = Date.now()
const work = mkdtempSync(join(tmpdir(), 'petstore-msw3-'))
const runtime = join(work, 'runtime')
const copy = join(work, 'repo')
const log = (line) => process.stdout.write(`[msw3-lane] ${line}\n`)
const seconds = (since) => `${Math.round((Date.now() - since) / 1000)} s`

// npm run exports the calling project's settings (npm_package_*, npm_config_local_prefix): the copies get none of
// them, only the machine's npm configuration, as a fresh shell would.
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_(package|lifecycle|config_local_prefix|config_prefix)/i.test(name)),
)

/**
 * The prepared copy's node_modules and Node, kept between runs. The key changes with either lock file (package-lock.json,
 * and node_modules/.package-lock.json, which npm rewrites on every install) and with the versions asked for, so an
 * install or an upgrade prepares them again. One entry is kept: filling one removes the others.
 */
const CACHE = join(tmpdir(), 'petstore-mock-lane-cache')
const readOr = (file) => (existsSync(file) ? readFileSync(file) : '')
const key = createHash('sha256')
  .update(readOr(join(ROOT, 'package-lock.json')))
  .update(readOr(join(ROOT, 'node_modules', '.package-lock.json')))
  .update(JSON.stringify([values.node, values.msw, values.vitest, process.platform, process.arch]))
  .digest('hex')
  .slice(0, 16)
const entry = join(CACHE, key)
/** Set once the copy's node_modules is complete (claimed from the cache or installed): it goes back there at the end. */
let preparedModules = false

let cleaned = false
function cleanUp() {
  if (cleaned) return
  cleaned = true
  if (values.keep) return log(`kept ${work}`)
  if (preparedModules && !existsSync(join(entry, 'node_modules'))) {
    try {
      for (const name of existsSync(CACHE) ? readdirSync(CACHE) : []) {
        if (name !== key) rmSync(join(CACHE, name), { recursive: true, force: true, maxRetries: 3 })
      }
      mkdirSync(entry, { recursive: true })
      // The same file system as the copy (both under the temporary folder): a rename, not a copy.
      renameSync(join(copy, 'node_modules'), join(entry, 'node_modules'))
    } catch (error) {
      log(`could not keep the prepared node_modules for the next run (${error.message}): the next run prepares it again`)
    }
  }
  rmSync(work, { recursive: true, force: true, maxRetries: 3 })
}

/** The running child, so that a signal stops it before the temporary folder is removed; no new one after that. */
let current
let stopping = false
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    if (stopping) return
    stopping = true
    log(`${signal}: stopping`)
    const child = current
    if (child) {
      const closed = new Promise((done) => child.once('close', done))
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await closed
      clearTimeout(timer)
    }
    cleanUp()
    process.exit(128 + constants.signals[signal])
  })
}

/** Runs a command with its output on ours; resolves to its exit code (null when a signal ended it). */
function run(command, args, options) {
  return new Promise((done, fail) => {
    if (stopping) return fail(new Error('stopped by a signal'))
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options })
    current = child
    child.once('error', fail)
    child.once('close', (code) => {
      current = undefined
      done(code)
    })
  })
}

async function npm(args, cwd, env = baseEnv) {
  const code = await run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env })
  if (code !== 0) throw new Error(`npm ${args.join(' ')} failed in ${cwd} (exit code ${code}).`)
}

const steps = []
const step = (label, ok, since, counts = {}) => steps.push({ label, ok, time: seconds(since), ...counts })

async function main() {
  let since = Date.now()
  const platform = { linux: 'linux', darwin: 'darwin' }[process.platform]
  if (!platform) throw new Error(`The npm registry ships no Node binary package for ${process.platform}: run this lane on Linux or macOS.`)
  const nodePackage = `node-${platform}-${process.arch}`
  if (values.fresh) rmSync(entry, { recursive: true, force: true, maxRetries: 3 })
  const node = join(entry, 'runtime', 'node_modules', nodePackage, 'bin', 'node')
  const nodeCached = existsSync(node)
  if (nodeCached) {
    log(`Node ${values.node} prepared by an earlier run (${join(entry, 'runtime')}; --fresh installs it again)`)
  } else {
    log(`Node ${values.node} from the npm registry (${nodePackage}@${values.node}) into ${runtime}`)
    mkdirSync(runtime)
    writeFileSync(join(runtime, 'package.json'), '{ "name": "petstore-msw3-runtime", "private": true }\n')
    await npm(['install', `${nodePackage}@${values.node}`], runtime)
    // Kept in the cache at once: the Node is read-only to the run.
    mkdirSync(entry, { recursive: true })
    rmSync(join(entry, 'runtime'), { recursive: true, force: true })
    renameSync(runtime, join(entry, 'runtime'))
  }
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  if (Number(/^v(\d+)/.exec(nodeVersion)?.[1]) < 22) throw new Error(`msw 3 needs Node 22 or later, got ${nodeVersion}.`)
  step(`${nodeCached ? 'Node of the last run:' : 'npm install'} ${nodePackage}@${values.node} (${nodeVersion})`, true, since)
  // npm and every script of the copy run on that Node: its directory first on PATH.
  // NODE_COMPILE_CACHE (Node 22+): the hundreds of CLI processes the tests start reuse V8's compiled code of the
  // modules they load (checked against each file's content), kept beside the prepared Node for the next run.
  const env = {
    ...baseEnv,
    PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`,
    NODE_COMPILE_CACHE: join(entry, 'compile-cache'),
  }

  since = Date.now()
  const cachedModules = join(entry, 'node_modules')
  const cached = existsSync(cachedModules)
  log(
    cached
      ? `copying the repository without node_modules into ${copy}; node_modules with msw 3 prepared by an earlier run (${cachedModules})`
      : `copying the repository with its node_modules into ${copy}`,
  )
  // dist/ comes along when built, with its times, so the CLI tests find it fresh instead of building again.
  const skip = new Set(['.git', 'test-results', 'coverage', '.tmp'])
  cpSync(ROOT, copy, {
    recursive: true,
    verbatimSymlinks: true,
    preserveTimestamps: true,
    filter: (source) => {
      const path = relative(ROOT, source)
      const name = basename(source)
      if (path === 'node_modules') return !cached
      if (path.startsWith(`node_modules`)) return true
      return !(skip.has(name) || name.endsWith('.tgz'))
    },
  })
  // Today's majors beside msw 3: vitest 5 unless `--vitest repo` keeps the repository's own (the oldest supported).
  // vitest 5 wants the types of a current Node (its optional peer @types/node ^22 || >=24), as the lane's Node is.
  const vitestSpec = values.vitest === 'repo' ? [] : [`vitest@${values.vitest}`, `@types/node@${values.node}`]
  if (cached) {
    renameSync(cachedModules, join(copy, 'node_modules'))
  } else {
    log(`msw@${values.msw} ${vitestSpec.join(' ')} into the copy (its package.json and lock file are left as they are)`)
    await npm(['install', `msw@${values.msw}`, ...vitestSpec, '--no-save'], copy, env)
  }
  preparedModules = true
  const versionOf = (name) => JSON.parse(readFileSync(join(copy, 'node_modules', name, 'package.json'), 'utf8')).version
  const mswVersion = versionOf('msw')
  const vitestVersion = versionOf('vitest')
  if (!mswVersion.startsWith('3.')) throw new Error(`Expected msw 3 in the copy, got ${mswVersion}.`)
  const prepared = cached ? 'node_modules from the last run' : `npm install msw@${values.msw} ${vitestSpec.join(' ')}`
  step(`copy, ${prepared} (msw ${mswVersion}, vitest ${vitestVersion})`, true, since)
  log(`Node ${nodeVersion}, msw ${mswVersion}, vitest ${vitestVersion}`)

  // The type-check runs beside vitest rather than before it, where it held the lane's first file back by its whole time.
  const typeCheckSince = Date.now()
  log('type-checking src/ against msw 3, beside vitest')
  const typeCheck = run(node, [join(copy, 'node_modules', 'typescript-native', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--noEmit'], {
    cwd: copy,
    env,
  }).then((code) => {
    step('tsc -p tsconfig.build.json --noEmit (src/), beside vitest', code === 0, typeCheckSince)
    return code
  })

  since = Date.now()
  // --all: every project; `package` only with the tarball `npm test` packed (see the header).
  const withPackage = Boolean(process.env.PETSTORE_TARBALL)
  const selection = values.all
    ? withPackage
      ? []
      : ['--project=!package']
    : ['--project', 'in-process', 'test/in-process/conformance.test.ts']
  log(
    values.all
      ? `every vitest project${withPackage ? '' : ' but package (no PETSTORE_TARBALL)'}`
      : 'shared conformance suite, in-process (msw setupServer and petStore.fetch)',
  )
  const report = join(work, 'vitest.json')
  const code = await run(
    node,
    [
      join(copy, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      ...selection,
      '--reporter=dot',
      `--reporter=${join(copy, 'scripts', 'lane-reporter.mjs')}`,
    ],
    {
      cwd: copy,
      // The package tests' fresh project gets this lane's msw, and its vitest and Node types unless --vitest repo.
      env: {
        ...env,
        LANE_REPORT: report,
        PETSTORE_CONSUMER_MSW: mswVersion,
        // A user of today's tools type-checks with TypeScript 7 (test/package/consumer.ts, decisions/026).
        PETSTORE_CONSUMER_TYPESCRIPT: '7',
        ...(values.vitest === 'repo' ? {} : { PETSTORE_CONSUMER_VITEST: vitestVersion, PETSTORE_CONSUMER_TYPES_NODE: values.node }),
      },
    },
  )
  await typeCheck
  const result = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : { projects: {}, unhandledErrors: 0, reason: 'no report' }
  // Kept beside the log of `npm test` (.tmp/), with each file's start and end: which files a run's last minutes wait on.
  if (existsSync(report)) {
    mkdirSync(join(ROOT, '.tmp'), { recursive: true })
    cpSync(report, join(ROOT, '.tmp', 'node24-lane.json'))
  }
  const total = { files: 0, passed: 0, failed: 0, skipped: 0 }
  const order = ['unit', 'in-process', 'express', 'scenarios', 'http', 'cli', 'redis', 'package', 'browser', 'examples']
  const rank = (name) => (order.includes(name) ? order.indexOf(name) : order.length)
  const projects = Object.entries(result.projects).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
  for (const [name, counts] of projects) {
    const ok = counts.failed === 0 && counts.failedFiles === 0 && counts.passed > 0
    steps.push({ label: `vitest --project ${name}`, ok, time: `${Math.round(counts.duration / 1000)} s (its files summed)`, ...counts })
    for (const key of Object.keys(total)) total[key] += counts[key]
  }
  const vitestOk = code === 0 && result.reason === 'passed' && total.failed === 0 && total.passed > 0
  const why = result.unhandledErrors ? `, ${result.unhandledErrors} unhandled errors` : ''
  step(`vitest, all of the above (exit code ${code}${why})`, vitestOk, since, total)

  const ok = steps.every((s) => s.ok)
  const date = new Date().toISOString().slice(0, 10)
  process.stdout.write(
    `\nmsw 3 lane, ${date}: Node ${nodeVersion} (npm registry) + msw ${mswVersion} + vitest ${vitestVersion}: ${ok ? 'pass' : 'FAIL'} in ${seconds(started)}\n`,
  )
  process.stdout.write('| Step | Files | Passed | Failed | Skipped | Time | Result |\n|---|---:|---:|---:|---:|---:|---|\n')
  for (const s of steps) {
    const cell = (value) => (value === undefined ? '' : value)
    process.stdout.write(
      `| ${s.label} | ${cell(s.files)} | ${cell(s.passed)} | ${cell(s.failed)} | ${cell(s.skipped)} | ${s.time} | ${s.ok ? 'pass' : 'FAIL'} |\n`,
    )
  }
  for (const f of result.failures ?? []) process.stdout.write(`FAILED ${f.file} > ${f.test}: ${f.message}\n`)
  if (!values.all) process.stdout.write('Only the conformance suite in-process ran: --all runs every project.\n')
  return ok
}

try {
  process.exitCode = (await main()) ? 0 : 1
} catch (error) {
  process.stderr.write(`[msw3-lane] FAIL: ${error instanceof Error ? error.message : error}\n`)
  process.exitCode = 1
} finally {
  cleanUp()
}
