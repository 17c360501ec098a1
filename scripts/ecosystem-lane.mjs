#!/usr/bin/env node
/**
 * The ecosystem lane: petstore-mock in the front-end tools' own projects, as their users run them (CONTRIBUTING.md,
 * "Lanes"). `.ci/run` runs it after `npm test`; it is not part of `npm test` (its installs are large).
 *
 *   playwright  docs/playwright.md's first test, copied from the page into examples/playwright/, run by Playwright's
 *               runner with `--workers 2 --repeat-each 3`
 *   storybook   examples/storybook/: Storybook (React, Vite) built, each story's state checked in Chromium
 *   nextjs      examples/nextjs/: `next build`, then Playwright with the fixture's sessions against `next start`
 *   specmatic   examples/specmatic/: Specmatic's contract test of the document the server serves, with its named
 *               examples only (no example files of its own), against that server
 *
 * Each example is copied into a temporary folder, gets `npm install <the packed tarball>` (its package.json's caret
 * ranges: the versions a user gets today, no lock file) and runs its own `npm test`, on Node 24 (today's, from the npm
 * registry as in today's lane of `npm test`) and the machine's Chromium. The installs run side by side (they wait on
 * the registry), the tests one after another (they build and drive a browser on two cores). Prints each step's time;
 * exits 1 when any failed, with the end of that step's output.
 *
 *   npm run test:ecosystem
 *   npm run test:ecosystem -- --only storybook --keep      # one project; keep its folder to look at
 *
 * The tarball is .tmp/pack/'s (what `npm test` packed), or PETSTORE_TARBALL; without one, the build is packed first.
 */
import { execFileSync, spawn } from 'node:child_process'
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const TOOLS = ['playwright', 'storybook', 'nextjs', 'specmatic']
const NODE_MAJOR = '24'
const { values } = parseArgs({ options: { only: { type: 'string' }, keep: { type: 'boolean', default: false } } })
const chosen = values.only ? values.only.split(',') : TOOLS
const unknown = chosen.filter((name) => !TOOLS.includes(name))
if (unknown.length > 0) {
  process.stderr.write(`[ecosystem] no project named ${unknown.join(', ')}: --only takes ${TOOLS.join(', ')}\n`)
  process.exit(2)
}

const started = Date.now()
const work = mkdtempSync(join(tmpdir(), 'petstore-mock-ecosystem-'))
const log = (line) => process.stdout.write(`[ecosystem] ${line}\n`)
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`
const rows = []

// npm run exports the calling project's settings: the projects get the machine's npm configuration only.
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_(package|lifecycle|config_local_prefix|config_prefix)/i.test(name)),
)

/** Every child runs in its own process group, stopped as a group by a signal (their servers and browsers too). */
const running = new Set()
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of running) {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
    }
    if (!values.keep) rmSync(work, { recursive: true, force: true, maxRetries: 3 })
    process.exit(130)
  })
}

/** Runs a command with its output to `logFile`; resolves to its exit code. */
function run(command, args, { cwd, env, logFile }) {
  return new Promise((done) => {
    const out = openSync(logFile, 'a')
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', out, out], detached: true })
    closeSync(out)
    running.add(child)
    child.once('error', (error) => {
      writeFileSync(logFile, `${command} did not start: ${error.message}\n`, { flag: 'a' })
      running.delete(child)
      done(1)
    })
    child.once('close', (code, signal) => {
      running.delete(child)
      // Whatever the step left running in its group (a dev server, a browser) ends with it.
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
      done(code ?? (signal ? 1 : 0))
    })
  })
}

/** Times one step; on failure prints the end of its output. */
async function step(label, logFile, action) {
  const since = Date.now()
  log(`${label} (output to ${logFile})`)
  const code = await action()
  rows.push({ label, time: Date.now() - since, ok: code === 0 })
  if (code !== 0) {
    const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''
    log(`${label}: FAILED (exit code ${code}); the end of its output:\n${text.split('\n').slice(-60).join('\n')}`)
  }
  return code === 0
}

/** The newest change to what the tarball is made of: a tarball older than it is not this code's. */
function newestSource() {
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [statSync(join(dir, entry.name)).mtimeMs],
    )
  return Math.max(...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'scenarios')), statSync(join(ROOT, 'package.json')).mtimeMs)
}

/** The tarball `npm test` packed, when it is newer than the sources; else one packed now from a fresh build. */
function tarball() {
  if (process.env['PETSTORE_TARBALL']) return resolve(process.env['PETSTORE_TARBALL'])
  const dir = join(ROOT, '.tmp', 'pack')
  const found = existsSync(dir) ? readdirSync(dir).find((name) => name.endsWith('.tgz')) : undefined
  if (found && statSync(join(dir, found)).mtimeMs > newestSource()) return join(dir, found)
  log(
    found
      ? 'the tarball in .tmp/pack is older than src/: building and packing again'
      : 'no tarball in .tmp/pack (npm test makes one): building and packing',
  )
  // From a clean dist/, as `prepack` does: a file of an older build must not reach the tarball.
  execFileSync('npm', ['run', '--silent', 'clean'], { cwd: ROOT, stdio: 'inherit' })
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' })
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: ROOT, stdio: 'inherit' })
  return join(
    dir,
    readdirSync(dir).find((name) => name.endsWith('.tgz')),
  )
}

/**
 * Node 24's binary: today's lane's (scripts/msw3-lane.mjs keeps it under $TMPDIR/petstore-mock-lane-cache), or one
 * installed from the npm registry (`node-<platform>-<arch>@24`, the official binary) into the lane's folder.
 */
async function node24() {
  const packageName = `node-${process.platform}-${process.arch}`
  const cache = join(tmpdir(), 'petstore-mock-lane-cache')
  for (const entry of existsSync(cache) ? readdirSync(cache) : []) {
    const node = join(cache, entry, 'runtime', 'node_modules', packageName, 'bin', 'node')
    if (existsSync(node) && execFileSync(node, ['--version'], { encoding: 'utf8' }).startsWith(`v${NODE_MAJOR}.`)) return node
  }
  const runtime = join(work, 'runtime')
  mkdirSync(runtime)
  writeFileSync(join(runtime, 'package.json'), '{ "private": true }\n')
  const ok = await step(`npm install ${packageName}@${NODE_MAJOR}`, join(work, 'runtime.log'), () =>
    run('npm', ['install', '--no-audit', '--no-fund', `${packageName}@${NODE_MAJOR}`], {
      cwd: runtime,
      env: baseEnv,
      logFile: join(work, 'runtime.log'),
    }),
  )
  if (!ok) throw new Error(`could not install Node ${NODE_MAJOR} from the npm registry`)
  return join(runtime, 'node_modules', packageName, 'bin', 'node')
}

/** docs/playwright.md's first example, as a user copies it: the first TypeScript block under "The first test". */
function firstPlaywrightExample() {
  const page = readFileSync(join(ROOT, 'docs', 'playwright.md'), 'utf8')
  const block = /^## The first test$[\s\S]*?^```ts\n([\s\S]*?)^```/m.exec(page)
  if (!block) throw new Error('docs/playwright.md has no TypeScript block under "## The first test"')
  return block[1]
}

/** A copy of examples/<tool> in the lane's folder, with what the page gives the user written in. */
function prepare(tool) {
  const dir = join(work, tool)
  cpSync(join(ROOT, 'examples', tool), dir, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|\.next|storybook-static|test-results|playwright-report)$/.test(source),
  })
  if (tool === 'playwright') {
    mkdirSync(join(dir, 'tests'), { recursive: true })
    writeFileSync(join(dir, 'tests', 'pets.spec.ts'), firstPlaywrightExample())
  }
  return dir
}

async function main() {
  const pack = tarball()
  const node = await node24()
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  log(`${chosen.join(', ')} on Node ${nodeVersion}, with ${pack}, in ${work}`)
  const env = {
    ...baseEnv,
    PATH: `${dirname(node)}${delimiter}${process.env['PATH'] ?? ''}`,
    CI: '1',
    CHROMIUM_PATH: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
    NEXT_TELEMETRY_DISABLED: '1',
    STORYBOOK_DISABLE_TELEMETRY: '1',
  }
  const dirs = Object.fromEntries(chosen.map((tool) => [tool, prepare(tool)]))
  const installed = await Promise.all(
    chosen.map((tool) => {
      const logFile = join(work, `${tool}-install.log`)
      return step(`${tool}: npm install (today's versions) and the tarball`, logFile, () =>
        run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', pack], { cwd: dirs[tool], env, logFile }),
      )
    }),
  )
  let ok = installed.every(Boolean)
  for (const [index, tool] of chosen.entries()) {
    if (!installed[index]) continue
    const logFile = join(work, `${tool}-test.log`)
    const passed = await step(`${tool}: npm test`, logFile, () => run('npm', ['test'], { cwd: dirs[tool], env, logFile }))
    if (passed) {
      const versions = JSON.parse(readFileSync(join(dirs[tool], 'package.json'), 'utf8'))
      const names = Object.keys({ ...versions.dependencies, ...versions.devDependencies }).filter((name) => name !== 'petstore-mock')
      const resolved = names.map((name) => {
        const manifest = join(dirs[tool], 'node_modules', name, 'package.json')
        return `${name} ${existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : '?'}`
      })
      log(`${tool}: passed with ${resolved.join(', ')}`)
    }
    ok &&= passed
  }
  return ok
}

let ok = false
try {
  ok = await main()
} catch (error) {
  log(`stopped: ${error.message}`)
}
const lines = [
  '',
  `ecosystem lane: ${ok ? 'passed' : 'FAILED'} in ${seconds(Date.now() - started)}`,
  '| Step | Time | Result |',
  '|---|---:|---|',
]
for (const row of rows) lines.push(`| ${row.label} | ${seconds(row.time)} | ${row.ok ? 'pass' : 'FAIL'} |`)
process.stdout.write(`${lines.join('\n')}\n`)
if (values.keep) log(`kept ${work}`)
else rmSync(work, { recursive: true, force: true, maxRetries: 3 })
process.exitCode = ok ? 0 : 1
