/**
 * What the browser tests share: building the example app and the conformance harness with Vite (once
 * per test file), serving a built folder on loopback, and launching Debian's Chromium through
 * playwright-core (`npx playwright install` cannot download browsers here: `npm run browser:install`).
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type Browser, chromium, type Page } from 'playwright-core'
import { build } from 'vite'

const execFileAsync = promisify(execFile)

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const EXAMPLE_DIR = join(ROOT, 'examples', 'browser')
export const HARNESS_DIR = join(ROOT, 'test', 'browser', 'harness')
export const RESULTS_DIR = join(ROOT, 'test-results')
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

/** Headless, no sandbox (tests run as root in CI containers), and no background traffic to a closed network. */
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Writes msw's worker script into `dir`, as the example's README tells users to (`--save=false`: package.json untouched). */
export async function initWorkerScript(dir: string): Promise<void> {
  const cli = join(ROOT, 'node_modules', 'msw', 'cli', 'index.js')
  await execFileAsync(process.execPath, [cli, 'init', dir, '--save=false'], { cwd: ROOT })
}

let exampleBuild: Promise<string> | undefined
const harnessBuilds = new Map<string, Promise<string>>()

/** Builds examples/browser with its own vite.config.ts into examples/browser/dist; resolves to that folder. */
export function buildExample(): Promise<string> {
  exampleBuild ??= (async () => {
    await initWorkerScript(join(EXAMPLE_DIR, 'public'))
    const outDir = join(EXAMPLE_DIR, 'dist')
    await build({
      root: EXAMPLE_DIR,
      configFile: join(EXAMPLE_DIR, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    })
    return outDir
  })()
  return exampleBuild
}

/**
 * Builds the conformance harness page (test/browser/harness) into its dist folder, worker script included. Test files
 * run in parallel, so a second file using the harness passes its own `outDir`: a build empties its folder first.
 */
export function buildHarness(outDir = join(HARNESS_DIR, 'dist')): Promise<string> {
  let harnessBuild = harnessBuilds.get(outDir)
  harnessBuild ??= (async () => {
    await build({
      root: HARNESS_DIR,
      configFile: false,
      logLevel: 'warn',
      publicDir: false,
      build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 1500 },
    })
    await initWorkerScript(outDir)
    return outDir
  })()
  harnessBuilds.set(outDir, harnessBuild)
  return harnessBuild
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
}

export interface StaticServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string
  close(): Promise<void>
}

/**
 * Serves a built folder on 127.0.0.1 with a free port. Anything not found is a plain-text 404, so a
 * request the service worker failed to answer (e.g. `/v1/pets`) is visible as such.
 */
export async function serveDirectory(dir: string): Promise<StaticServer> {
  const root = resolve(dir)
  const server = createServer(async (request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname)
    const file = resolve(root, `.${pathname.endsWith('/') ? `${pathname}index.html` : pathname}`)
    const headers = { 'Service-Worker-Allowed': '/', 'Cache-Control': 'no-store' }
    const found = (file === root || file.startsWith(root + sep)) && (await stat(file).catch(() => undefined))?.isFile()
    if (!found || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' })
      response.end(`Not found by the static test server: ${request.method} ${pathname}\n`)
      return
    }
    const body = await readFile(file)
    response.writeHead(200, {
      ...headers,
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': body.length,
    })
    response.end(request.method === 'HEAD' ? undefined : body)
  })
  await new Promise<void>((ready, fail) => {
    server.once('error', fail)
    server.listen(0, '127.0.0.1', ready)
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}

/** The script URL of the service worker controlling the page, or null: proves msw answers through its worker, not a fallback. */
export function workerScriptOf(page: Page): Promise<string | null> {
  return page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null)
}

/** Launches the system Chromium headless; fails with the command that installs it when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `[petstore-mock] Chromium not found at ${CHROMIUM_PATH}: run \`npm run browser:install\` (Debian/Ubuntu) or set CHROMIUM_PATH to a Chromium or Chrome binary.`,
    )
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
}

/**
 * Collects the page's uncaught errors and console errors, to show them when a test fails. Chromium's
 * "Failed to load resource" for an API answer (a 401, 404 or 429 under `/v1/`) is the mock doing its job.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const url = message.location().url
    if (message.text().startsWith('Failed to load resource') && new URL(url, 'http://invalid').pathname.startsWith('/v1/')) return
    errors.push(`console.error: ${message.text()} (${url})`)
  })
  return errors
}

/** The harness page open in Chromium, controlled by msw's worker (test/browser/harness/main.ts). */
export interface HarnessPage {
  readonly browser: Browser
  readonly server: StaticServer
  readonly page: Page
  /** What the page logged as errors since it opened. */
  readonly pageErrors: string[]
}

/**
 * Builds the harness (into `outDir`: a file of its own keeps another file's build from emptying it), serves it, opens
 * it and waits until msw's worker controls it; throws with the page's errors when it does not start.
 */
export async function openHarnessPage(outDir?: string): Promise<HarnessPage> {
  const [dist, browser] = await Promise.all([buildHarness(outDir), launchChromium()])
  const server = await serveDirectory(dist)
  const page = await browser.newPage()
  const pageErrors = collectPageErrors(page)
  await page.goto(`${server.url}/`)
  await page
    .waitForFunction(() => window.petStoreHarness !== undefined, undefined, { timeout: 30_000 })
    .catch((error: unknown) => {
      throw new Error(`The harness page did not start: ${pageErrors.join('\n') || String(error)}`)
    })
  const script = await workerScriptOf(page)
  if (script !== `${server.url}/mockServiceWorker.js`)
    throw new Error(`The harness page is not controlled by msw's worker (controller: ${script}).`)
  return { browser, server, page, pageErrors }
}
