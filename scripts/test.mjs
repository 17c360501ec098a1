#!/usr/bin/env node
/**
 * `npm test`: every check of the project, in the order that lets each step reuse the one before.
 *
 *   1. set-up     Chromium, redis-server and xmllint from Debian when missing, in one apt-get call
 *                 (scripts/ensure-debian.mjs)
 *   2. build      one `tsc -p tsconfig.build.json` into dist/ (TypeScript 7's compiler, decisions/026), beside
 *                 `biome check`
 *   3. package    one `npm pack --ignore-scripts` of that build into .tmp/; the `package` vitest project installs the
 *                 same tarball (PETSTORE_TARBALL), so nothing builds twice
 *      checks     beside the lanes below (their output in .tmp/, printed after): `tsc` type-checking src/, test/ and
 *                 the examples, arethetypeswrong and publint on the tarball
 *   4. today's    scripts/msw3-lane.mjs --all: every vitest project on Node 24, msw 3 and vitest 5, the tools users
 *      lane       arrive with (decisions/019); and beside it
 *      oldest     the machine's Node (20) with the repository's msw 2.12 and vitest 4, the oldest we support, on what a
 *      lane       user of those meets (scripts/lanes.mjs): the conformance suite in the Node hosts, msw 2's worker in
 *                 Chromium, the tarball installed and run, the docs' code blocks, the example suite
 *
 * It stops after the first stage that fails (the checks and the two lanes are one), and always ends with a table of
 * each step's and each vitest project's time.
 *
 *   npm test
 *   npm test -- --skip-lane       # steps 1-3, then every project on the machine's Node only
 *   npm run test:quick            # unit, in-process, express, scenarios, architecture: no build, no browser
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { OLDEST_LANE } from './lanes.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const PACK_DIR = join(ROOT, '.tmp', 'pack')
const VITEST_REPORT = join(ROOT, '.tmp', 'vitest-projects.json')
const skipLane = process.argv.includes('--skip-lane')
const bin = (name) => join(ROOT, 'node_modules', '.bin', name)

const started = Date.now()
const rows = []
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`
const log = (line) => process.stdout.write(`\n[test] ${line}\n`)

/** Runs a command with its output on ours; resolves to its exit code. */
function run(command, args, env = {}, logFile = undefined) {
  return new Promise((done) => {
    const out = logFile ? openSync(logFile, 'w') : 'inherit'
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', out, out], env: { ...process.env, ...env } })
    if (typeof out === 'number') closeSync(out)
    child.once('error', (error) => {
      process.stderr.write(`[test] ${command} did not start: ${error.message}\n`)
      done(1)
    })
    child.once('close', (code, signal) => done(code ?? (signal ? 1 : 0)))
  })
}

/** Runs the steps of one stage at the same time; records each one's time; false when any failed. */
async function stage(steps) {
  const results = await Promise.all(
    steps.map(async ({ label, command, args, env, log: logFile }) => {
      const since = Date.now()
      log(logFile ? `${label} (output to ${logFile})` : label)
      const code = await run(command, args, env, logFile)
      rows.push({ label, time: Date.now() - since, ok: code === 0 })
      return code === 0
    }),
  )
  return results.every(Boolean)
}

function summary() {
  const lines = ['', `npm test: ${rows.every((row) => row.ok) ? 'passed' : 'FAILED'} in ${seconds(Date.now() - started)}`]
  lines.push('| Step | Time | Result |', '|---|---:|---|')
  for (const row of rows) lines.push(`| ${row.label} | ${seconds(row.time)} | ${row.ok ? 'pass' : 'FAIL'} |`)
  if (existsSync(VITEST_REPORT)) {
    const { projects, files, failures } = JSON.parse(readFileSync(VITEST_REPORT, 'utf8'))
    lines.push('', `vitest projects on this Node, ${process.versions.node} (time: the sum of their files, which run side by side):`)
    lines.push('| Project | Files | Passed | Failed | Skipped | Time |', '|---|---:|---:|---:|---:|---:|')
    const total = { passed: 0, failed: 0, skipped: 0 }
    for (const [name, p] of Object.entries(projects)) {
      lines.push(`| ${name} | ${p.files} | ${p.passed} | ${p.failed} | ${p.skipped} | ${seconds(p.duration)} |`)
      for (const key of Object.keys(total)) total[key] += p[key]
    }
    const slowest = (files ?? []).sort((a, b) => b.duration - a.duration).slice(0, 8)
    if (slowest.length > 0) lines.push('', `slowest files: ${slowest.map((f) => `${f.file} ${seconds(f.duration)}`).join(', ')}`)
    for (const f of failures ?? []) lines.push(`FAILED ${f.file} > ${f.test}: ${f.message}`)
    // The plain closing line a CI reader looks for.
    lines.push('', `vitest: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`)
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}

async function main() {
  const node = process.execPath
  if (
    !(await stage([
      {
        label: 'Chromium, redis-server, xmllint (Debian) if missing',
        command: node,
        args: ['scripts/ensure-debian.mjs', 'chromium', 'redis', 'xmllint'],
      },
    ]))
  )
    return false
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true })
  if (
    !(await stage([
      {
        label: 'build: tsc -p tsconfig.build.json (TypeScript 7)',
        command: node,
        // By path: node_modules/.bin/tsc is claimed by both TypeScripts (decisions/026).
        args: [join(ROOT, 'node_modules', 'typescript-native', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      },
      { label: 'lint: biome check', command: bin('biome'), args: ['check', '.'] },
    ]))
  )
    return false

  rmSync(PACK_DIR, { recursive: true, force: true })
  mkdirSync(PACK_DIR, { recursive: true })
  // --ignore-scripts: `prepack` would clean and build again; dist/ was just built.
  if (
    !(await stage([
      {
        label: 'npm pack (of that build)',
        command: 'npm',
        args: ['pack', '--ignore-scripts', '--silent', '--pack-destination', PACK_DIR],
      },
    ]))
  )
    return false
  const tarball = join(PACK_DIR, readdirSync(PACK_DIR).find((name) => name.endsWith('.tgz')) ?? '')
  // The checks that read the build and the tarball without running them run beside the lanes, their output in files
  // printed after: before the lanes, they held both lanes back by their whole time, the type-check's most (a type error
  // in src/ already fails the build above: tsc exits 2).
  const checks = [
    { label: 'type-check: tsc src, test, bench, examples', command: 'npm', args: ['run', '--silent', 'typecheck'], log: 'typecheck' },
    { label: 'arethetypeswrong (esm-only) on the tarball', command: bin('attw'), args: [tarball, '--profile', 'esm-only'], log: 'attw' },
    { label: 'publint --strict', command: bin('publint'), args: ['--strict'], log: 'publint' },
  ].map((check) => ({ ...check, log: join(ROOT, '.tmp', `${check.log}.log`) }))

  const env = { PETSTORE_TARBALL: tarball }
  rmSync(VITEST_REPORT, { force: true })
  const vitest = [
    join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--reporter=dot',
    `--reporter=${join(ROOT, 'scripts', 'lane-reporter.mjs')}`,
    // With today's lane beside it, the oldest tools run their own files only (scripts/lanes.mjs, decisions/019).
    ...(skipLane ? [] : OLDEST_LANE),
  ]
  // The two lanes run side by side: their files mostly wait on sockets, processes and Chromium, and use free ports
  // and folders of their own (today's lane works in a temporary copy). Its output goes to a file, printed after.
  const laneLog = join(ROOT, '.tmp', 'node24-lane.log')
  const steps = [
    {
      label: skipLane
        ? `vitest, every project (Node ${process.versions.node})`
        : `oldest lane: vitest (Node ${process.versions.node}, msw 2)`,
      command: node,
      args: vitest,
      // The docs' shell blocks (the server's command line) and ts-jest block (the same tools in both lanes) run once,
      // in today's lane: the tools a user following the docs installs (test/package/doc-blocks.test.ts, decisions/027).
      env: { ...env, LANE_REPORT: VITEST_REPORT, ...(skipLane ? {} : { PETSTORE_DOCS_SHARED: 'skip' }) },
    },
  ]
  if (!skipLane) {
    const lane = ['scripts/msw3-lane.mjs', '--node', '24', '--all']
    steps.push({ label: "today's lane: Node 24 + msw 3 + vitest 5, every project", command: node, args: lane, env, log: laneLog })
  }
  const ok = await stage([...checks, ...steps])
  for (const { label, log: file } of checks) {
    const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : ''
    if (text !== '') log(`${label}, its output:\n${text}`)
  }
  if (!skipLane && existsSync(laneLog)) {
    log(`today's lane (Node 24 + msw 3 + vitest 5), its output (${laneLog}):`)
    process.stdout.write(readFileSync(laneLog, 'utf8'))
  }
  return ok
}

const ok = await main()
summary()
process.exitCode = ok ? 0 : 1
