/**
 * The Dockerfile's runtime stage, run on this machine (no container engine here): its install
 * command from the lock file, the build it copies, its environment, and its HEALTHCHECK command, taken
 * from the Dockerfile itself so the test follows it. Loopback only: PETSTORE_HOST is 127.0.0.1 here.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { ensureBuilt, ROOT } from '../http/support.js'
import { SERVER_INTEGRATIONS } from './consumer.js'

const run = promisify(execFile)
let app = ''
let dockerfile = ''
let server: ChildProcess | undefined

/** The JSON-array form of an instruction (`CMD ["node", "-e", "…"]`), parsed. */
function execForm(instruction: string): string[] {
  const line = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .find((text) => text.startsWith(`${instruction} `))
  if (!line?.includes('[')) throw new Error(`The Dockerfile has no ${instruction} in JSON form.`)
  return JSON.parse(line.slice(line.indexOf('['))) as string[]
}

beforeAll(async () => {
  dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8')
  await ensureBuilt()
  app = await mkdtemp(join(tmpdir(), 'petstore-mock-docker-'))
  for (const file of ['package.json', 'package-lock.json', 'scripts/server-packages.mjs'])
    await cp(join(ROOT, file), join(app, file.replace('scripts/', '')))
  // The build stage's `npm ci` is this project's own install (from the same lock file): copied as the runtime stage
  // copies it (hard links: npm prune unlinks what it removes and leaves this project's files alone).
  await run('cp', ['-al', join(ROOT, 'node_modules'), join(app, 'node_modules')], { timeout: 120_000 })
  // The runtime stage's RUN (its continued lines joined), run by a shell as the image runs it.
  const install = /^RUN (node server-packages\.mjs .*)$/m.exec(dockerfile.replace(/\\\n\s*/g, ' '))?.[1]
  if (!install) throw new Error("The runtime stage does not prune the build stage's install (node server-packages.mjs && npm prune).")
  // Without the cache clean: it would empty this machine's npm cache, which the other installs of the run read.
  const env = { ...process.env, NODE_ENV: 'production' }
  await run('sh', ['-c', install.replace(/&& npm cache clean --force/, '')], {
    cwd: app,
    env,
    timeout: 180_000,
    maxBuffer: 16 * 1024 * 1024,
  })
  await cp(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true })
}, 240_000)

afterEach(() => {
  server?.kill('SIGKILL')
})

afterAll(async () => {
  server?.kill('SIGKILL')
  await rm(app, { recursive: true, force: true })
})

it('builds on the current Node LTS in both stages', () => {
  expect(dockerfile).toMatch(/^FROM node:24-slim AS build$/m)
  expect(dockerfile).toMatch(/^FROM node:24-slim$/m)
})

it("installs from the lock file once, and keeps the library and the server's optional packages at their locked versions", async () => {
  expect(dockerfile.match(/^RUN npm ci /gm)).toHaveLength(1)
  expect(dockerfile).toMatch(/^COPY --from=build \/src\/node_modules \.\/node_modules$/m)
  expect(dockerfile).not.toMatch(/npm install/)
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }
  for (const name of [...SERVER_INTEGRATIONS, 'zod', '@msw/data']) {
    const installed = JSON.parse(await readFile(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
    expect(installed.version, name).toBe(lock.packages[`node_modules/${name}`]?.version)
  }
  // The development tools are gone.
  for (const name of ['vitest', 'typescript', '@biomejs/biome'])
    await expect(readFile(join(app, 'node_modules', name, 'package.json'))).rejects.toThrow()
})

it('gives node a state folder, declared a volume, that a named volume copies with its owner', () => {
  const runtime = dockerfile.slice(dockerfile.search(/^FROM node:24-slim$/m))
  const folder = execForm('VOLUME')[0] as string
  expect(folder).toBe('/data')
  const prepared = runtime.search(new RegExp(`^RUN mkdir -p ${folder} && chown node:node ${folder}$`, 'm'))
  const declared = runtime.search(/^VOLUME /m)
  const user = runtime.search(/^USER node$/m)
  // Created and chowned as root, before VOLUME (changes to a declared volume's folder after it are dropped) and USER.
  expect(prepared).toBeGreaterThan(-1)
  expect(declared).toBeGreaterThan(prepared)
  expect(user).toBeGreaterThan(declared)
})

/** Starts the runtime stage's ENTRYPOINT on a loopback port and waits for its banner; `out` is what it printed. */
async function startRuntime() {
  const entry = execForm('ENTRYPOINT').map((part) => part.replace('/app', app))
  const port = String(4300 + Math.floor(Math.random() * 500))
  const env = { ...process.env, NODE_ENV: 'production', PETSTORE_HOST: '127.0.0.1', PETSTORE_PORT: port, PETSTORE_LOG: 'silent' }
  const started = spawn(entry[0] as string, [...entry.slice(1)], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] })
  server = started
  let out = ''
  started.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  // A ceiling for a busy machine: only a runtime that never starts reaches it.
  const deadline = Date.now() + 60_000
  while (!out.includes('Ctrl-C to stop.')) {
    if (started.exitCode !== null) throw new Error(`The runtime stage exited with ${started.exitCode} before its banner:\n${out}`)
    if (Date.now() > deadline) throw new Error(`The runtime stage printed no banner within 60 s:\n${out}`)
    await new Promise((done) => setTimeout(done, 50))
  }
  return { env, out, port, started }
}

it('starts from the installed runtime stage', async () => {
  const { out, port } = await startRuntime()
  expect(out).toContain(`listening on http://127.0.0.1:${port}/v1`)
})

it('passes its HEALTHCHECK only while the server is up', async () => {
  const { env, started } = await startRuntime()
  const check = execForm('HEALTHCHECK')
  // The exit code of the HEALTHCHECK command; a command still running after 60 s (a ceiling) is "hung", never a pass.
  const health = () =>
    run(check[0] as string, check.slice(1), { env, timeout: 60_000 }).then(
      () => 0,
      (error: { code?: number; killed?: boolean }) => (error.killed ? 'hung' : (error.code ?? 1)),
    )
  const probe = await health()
  expect(probe).toBe(0)
  started.kill('SIGKILL')
  const down = await health()
  expect(down).toBe(1)
})
