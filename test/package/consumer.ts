/**
 * A user's project for the package checks: the tarball (`npm test`'s, or `npm pack` of dist/) installed into an empty
 * folder next to msw, Jest and vitest from the registry, with one `npm install` for the whole vitest run (its global
 * setup, ./consumer-setup.ts); each test file that needs it works in a copy (`copyConsumer`).
 */
import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { promisify } from 'node:util'
import { inject } from 'vitest'
import { INTEGRATIONS } from '../../src/server/integrations.js'
import { ensureBuilt, ROOT } from '../http/support.js'
import { installCached } from './consumer-cache.js'

export { ROOT }

const run = promisify(execFile)
/**
 * The compiler a user's project type-checks with: the oldest TypeScript we check our declarations against (the
 * project's 5.9) in the main lane; today's, TypeScript 7, where the Node 24 lane asks for it
 * (PETSTORE_CONSUMER_TYPESCRIPT=7, scripts/msw3-lane.mjs; decisions/026).
 */
export const TSC =
  process.env['PETSTORE_CONSUMER_TYPESCRIPT'] === '7'
    ? join(ROOT, 'node_modules', 'typescript-native', 'bin', 'tsc')
    : join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
/** The Jest the examples run on: the version of `expect` the project's jest.ts types against. */
export const JEST_VERSION = '30.5.2'
/** The compiler options of a careful user's project. */
export const STRICT = {
  target: 'ES2022',
  // msw's declarations name DOM types (Request, MessageEvent), as msw's own docs say.
  lib: ['ES2023', 'DOM'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  types: ['node'],
  // Our declarations are checked too: a type they name must come with the package (express's, #9).
  skipLibCheck: false,
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the run's one installed project (./consumer-setup.ts), where `installed` waits for it. */
    consumerDir: string
  }
}

export interface PackedFile {
  path: string
}

export interface Consumer {
  /** The temporary folder holding the tarball and the project; remove it when done. */
  workDir: string
  /** The project's folder, with node_modules installed. */
  project: string
  /** The tarball's path. */
  tarball: string
  /** The files the tarball holds. */
  packed: PackedFile[]
}

/** Runs a command; rejects with its output when it fails, or when it outlives `ceilingMs` (default 180 s). */
export async function sh(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  ceilingMs = 180_000,
): Promise<{ stdout: string; stderr: string }> {
  try {
    // SIGKILL at the ceiling: an `npm install` stalled on the network outlives a SIGTERM.
    return await run(command, args, {
      cwd,
      timeout: ceilingMs,
      killSignal: 'SIGKILL',
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, ...env },
    })
  } catch (error) {
    const { stdout, stderr, killed } = error as { stdout?: string; stderr?: string; killed?: boolean }
    const why = killed ? `stopped at its ceiling of ${ceilingMs / 1000} s` : 'failed'
    throw new Error(`${command} ${args.join(' ')} ${why} in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`)
  }
}

/**
 * The tarball `npm test` packed from its one build (PETSTORE_TARBALL), copied into `dir`; without it (a run of this
 * project alone), `npm pack` of dist/, built first when older than src/ (packing never rewrites it).
 */
async function packOnce(dir: string): Promise<{ filename: string; files: PackedFile[] }> {
  const given = process.env['PETSTORE_TARBALL']
  if (given) {
    const filename = basename(given)
    await cp(given, join(dir, filename))
    const { stdout } = await sh('tar', ['-tzf', filename], dir)
    const files = stdout
      .split('\n')
      .filter((line) => line.startsWith('package/') && !line.endsWith('/'))
      .map((line) => ({ path: line.slice('package/'.length) }))
    return { filename, files }
  }
  await ensureBuilt()
  const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT)
  const [result] = JSON.parse(stdout) as [{ filename: string; files: PackedFile[] }]
  return result
}

/**
 * Packs the package and installs it into a new project in a temporary folder, next to msw, Jest, vitest and what the
 * docs' examples need (newman, ts-jest, TypeScript): once per vitest run, in the package project's global setup
 * (./consumer-setup.ts), into `workDir`. The test files work on copies of it (`copyConsumer`).
 */
/** The optional peer dependencies of the server's tools (decision 029). */
export const SERVER_INTEGRATIONS = Object.keys(INTEGRATIONS)

export async function installConsumer(workDir: string): Promise<Consumer> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
  const consumerVitest = process.env['PETSTORE_CONSUMER_VITEST'] ?? pkg.devDependencies['vitest']
  const result = await packOnce(workDir)
  const project = join(workDir, 'project')
  await mkdir(project)
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify(
      {
        name: 'petstore-mock-consumer',
        private: true,
        type: 'module',
        dependencies: {
          'petstore-mock': `file:../${result.filename}`,
          // The msw of the lane that runs this file (scripts/msw3-lane.mjs sets msw 3), else the project's own.
          msw: process.env['PETSTORE_CONSUMER_MSW'] ?? pkg.devDependencies['msw'],
          // The Node 24 lane (scripts/msw3-lane.mjs) installs today's vitest and the Node types it wants.
          '@types/node': process.env['PETSTORE_CONSUMER_TYPES_NODE'] ?? pkg.devDependencies['@types/node'],
          // examples/jest runs on them; vitest for the matchers' type check (pack.test.ts checks vitest 3.2 in a copy).
          // Jest is not a dev dependency of the project itself (only its `expect` types are): its resolver's platform
          // binaries would make the lock file incomplete for `npm ci` on other platforms.
          jest: JEST_VERSION,
          '@jest/globals': JEST_VERSION,
          vitest: consumerVitest,
          // For the docs' examples (doc-blocks.test.ts): the Postman block of docs/server.md, in-process.md's ts-jest.
          newman: '6.2.2',
          'ts-jest': '29.4.15',
          typescript: pkg.devDependencies['typescript'] ?? 'latest',
          // The server's optional tools (decision 029), as a user who runs the server installs them beside the package:
          // the server, its MCP, --redis, metrics and traces are tested from this project. library-only.test.ts removes
          // them from a copy, for the library's entries alone.
          ...Object.fromEntries(SERVER_INTEGRATIONS.map((name) => [name, pkg.devDependencies[name] as string])),
          // A TypeScript app that mounts the middleware has express's types (docs/server.md's express block).
          '@types/express': pkg.devDependencies['@types/express'] as string,
          // Vitest's browser mode with Playwright (vitest-browser.test.ts), where it runs: Node 22 or later.
          ...(NODE_MAJOR >= 22 ? { '@vitest/browser-playwright': consumerVitest, playwright: PLAYWRIGHT_VERSION } : {}),
        },
      },
      null,
      2,
    )}\n`,
  )
  // The machine's own npm configuration (registry, cache) applies, as for a user's `npm install`. --prefer-offline:
  // what the npm cache holds is not asked for again, so the two lanes of `npm test` ask the registry once for what
  // they share. The machine's Chromium is used (test/browser/support.ts): Playwright downloads no browser.
  const install = async () =>
    void (await sh(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
      project,
      { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
      // From a cold npm cache on a fresh machine, beside the other lane's install: up to the files' wait (below).
      INSTALL_CEILING_MS,
    ))
  const tarball = join(workDir, result.filename)
  const fileOf = async (path: string) => (await sh('tar', ['-xOzf', tarball, path], workDir)).stdout
  const how = await installCached(project, fileOf, install)
  process.stdout.write(`[package tests] the consumer project: ${how}\n`)
  return { workDir, project, tarball, packed: result.files }
}

/** Where the global setup writes the install's outcome: the consumer, or why there is none. */
const OUTCOME = 'installed.json'
/** The longest a file waits for the run's install (the package project's hook ceiling is 300 s). */
const INSTALL_WAIT_MS = 280_000
/** The install's own ceiling: a little under the files' wait, so a stalled install is reported as one. */
const INSTALL_CEILING_MS = 270_000

/** Writes the install's outcome into `workDir`, for `installed` in the test files' workers. */
export async function markInstalled(workDir: string, outcome: Consumer | Error): Promise<void> {
  const text = outcome instanceof Error ? { error: outcome.message } : { consumer: outcome }
  await writeFile(join(workDir, `${OUTCOME}.part`), JSON.stringify(text))
  // Renamed into place, so a reader never sees half of it.
  await rename(join(workDir, `${OUTCOME}.part`), join(workDir, OUTCOME))
}

/** The run's installed project once its install ended (polled: it runs in the vitest process, beside the files). */
async function installed(workDir: string): Promise<Consumer> {
  const deadline = Date.now() + INSTALL_WAIT_MS
  for (;;) {
    const text = await readFile(join(workDir, OUTCOME), 'utf8').catch(() => undefined)
    if (text !== undefined) {
      const outcome = JSON.parse(text) as { consumer?: Consumer; error?: string }
      if (outcome.consumer) return outcome.consumer
      throw new Error(`The run's install of the packed tarball failed: ${outcome.error}`)
    }
    if (Date.now() > deadline) throw new Error(`The run's install of the packed tarball did not end within ${INSTALL_WAIT_MS / 1000} s.`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/**
 * A copy of the run's one installed project (./consumer-setup.ts) in a new temporary folder, for a test file to write
 * into: its files hard-linked where the system can (`cp -al`: a second or so, against a minute for an install), so
 * nothing a test writes reaches another file's project. npm replaces a package's files rather than writing into
 * them, so an `npm install` in a copy leaves the others alone. Remove `workDir` when done.
 */
export async function copyConsumer(prefix: string): Promise<Consumer> {
  const shared = await installed(inject('consumerDir'))
  const workDir = await mkdtemp(join(tmpdir(), prefix))
  const project = join(workDir, 'project')
  if (process.platform === 'linux') await sh('cp', ['-al', shared.project, project], workDir)
  else await cp(shared.project, project, { recursive: true, verbatimSymlinks: true })
  return { ...shared, workDir, project }
}

/** The Node running this file: Vitest 5, msw 3 and Vitest's browser mode want 22 or later. */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0])
/** The Playwright of the browser-mode project (vitest-browser.test.ts), any current one: it drives the machine's Chromium. */
const PLAYWRIGHT_VERSION = '^1.50.0'
