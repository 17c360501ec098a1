/**
 * The package as a user gets it: `npm pack`, the tarball installed into an empty project next to msw
 * from the registry (one `npm install` for every check), then each entry used the way the README says.
 * Slow (an install), so it is its own vitest project: `npx vitest run --project package`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build, type Plugin } from 'vite'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ensureBuilt, ROOT } from '../http/support.js'

const run = promisify(execFile)
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
const BANNER = /^petstore-mock \S+ listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/

interface PackedFile {
  path: string
}

let workDir: string
let project: string
let packed: PackedFile[]
let pkg: { version: string; devDependencies: Record<string, string> }
const children = new Set<ChildProcess>()

/** Runs a command in the temporary project; rejects with its output when it fails. */
async function sh(command: string, args: string[], cwd = project): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(command, args, { cwd, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`)
  }
}

beforeAll(async () => {
  // Reuses dist/ when it is newer than src/ (the HTTP tests share it): packing never rewrites it.
  await ensureBuilt()
  pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'))
  workDir = await mkdtemp(join(tmpdir(), 'petstore-mock-pack-'))
  const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', workDir], ROOT)
  const [result] = JSON.parse(stdout) as [{ filename: string; files: PackedFile[] }]
  packed = result.files
  project = join(workDir, 'project')
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
          msw: pkg.devDependencies['msw'],
          '@types/node': pkg.devDependencies['@types/node'],
        },
      },
      null,
      2,
    )}\n`,
  )
  // The machine's own npm configuration (registry, cache) applies: this is what a user's `npm install` does.
  await sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'])
})

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGKILL')
  }
  if (workDir) await rm(workDir, { recursive: true, force: true })
})

it('packs the built entries, the scenarios, the docs and the licence, and no tests, source maps or sources', () => {
  const paths = packed.map((file) => file.path)
  expect(
    paths.filter((path) => !/^(dist\/(src|fixtures|scenarios)\/|scenarios\/|docs\/|README\.md$|LICENSE$|package\.json$)/.test(path)),
  ).toEqual([])
  expect(paths.filter((path) => /\.test\.|\.map$|(?<!\.d)\.ts$/.test(path))).toEqual([])
  expect(paths).toContain('LICENSE')
  for (const entry of ['index', 'node', 'browser', 'http', 'vitest', 'cli']) {
    expect(paths).toContain(`dist/src/${entry}.js`)
    expect(paths).toContain(`dist/src/${entry}.d.ts`)
  }
  expect(paths).toContain('scenarios/scenario.schema.json')
})

it('starts with `npx petstore-mock --port 0` and answers GET /v1/pets', async () => {
  // Its own process group, so the stop reaches the server and not only npx.
  const child = spawn('npx', ['petstore-mock', '--port', '0', '--log', 'silent'], { cwd: project, detached: true })
  children.add(child)
  let stdout = ''
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      output += chunk
      const match = BANNER.exec(stdout.split('\n')[0] ?? '')
      if (match?.[1]) resolve(match[1])
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
    child.on('exit', (code) => reject(new Error(`npx petstore-mock exited with ${code}:\n${output}`)))
    setTimeout(() => reject(new Error(`No banner from npx petstore-mock within 60 s:\n${output}`)), 60_000).unref()
  })
  expect(stdout.split('\n')[0]).toBe(`petstore-mock ${pkg.version} listening on ${url}`)

  const response = await fetch(`${url}/pets?limit=3`, { headers: { Authorization: 'Bearer test-free' } })
  expect(response.status).toBe(200)
  expect(response.headers.get('x-ratelimit-limit')).toBe('60')
  expect(await response.json()).toHaveLength(3)

  // npx itself dies of the signal; the server's own clean stop is what its log says.
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  process.kill(-(child.pid as number), 'SIGTERM')
  await exited
  expect(stdout).toContain('petstore-mock: SIGTERM, finishing in-flight requests')
})

it('type-checks a strict NodeNext TypeScript file that imports petstore-mock/node, and runs it through setupServer', async () => {
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
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
        outDir: 'out',
      },
      files: ['node-check.ts'],
    }),
  )
  await writeFile(
    join(project, 'node-check.ts'),
    [
      "import { createPetStore, type Pet } from 'petstore-mock'",
      "import { petStoreMiddleware } from 'petstore-mock/http'",
      "import { setupPetStoreServer } from 'petstore-mock/node'",
      '',
      'const middleware = petStoreMiddleware(createPetStore({ seed: 2 }))',
      'const { server, petStore } = setupPetStoreServer({ seed: 1 })',
      "server.listen({ onUnhandledRequest: 'error' })",
      "const response = await fetch('https://api.petstore.test/v1/pets?limit=5', { headers: { Authorization: 'Bearer test-pro' } })",
      'const pets = (await response.json()) as Pet[]',
      "await petStore.pets.create({ id: 1000, name: 'Rex', categoryId: 2, status: 'sold' })",
      "const journal = petStore.journal.find({ method: 'GET', path: '/v1/pets' })",
      "console.log(JSON.stringify({ status: response.status, limit: response.headers.get('x-ratelimit-limit'), pets: pets.length, journal: journal.length, middleware: typeof middleware }))",
      'server.close()',
      '',
    ].join('\n'),
  )
  await sh(process.execPath, [TSC, '-p', 'tsconfig.json'])
  const { stdout } = await sh(process.execPath, ['out/node-check.js'])
  expect(JSON.parse(stdout)).toEqual({ status: 200, limit: '300', pets: 5, journal: 1, middleware: 'function' })
})

it('resolves the core, the http server, the scenario files and their JSON Schema by their exports', async () => {
  await writeFile(
    join(project, 'exports-check.mjs'),
    [
      "import { createPetStore, openApiDocument } from 'petstore-mock'",
      "import { createPetStoreServer } from 'petstore-mock/http'",
      "import flaky from 'petstore-mock/scenarios/flaky.json' with { type: 'json' }",
      "import schema from 'petstore-mock/scenario.schema.json' with { type: 'json' }",
      '',
      "const inProcess = await createPetStore({ seed: 1 }).fetch('/v1/pets/1', { headers: { Authorization: 'Bearer test-free' } })",
      "const server = createPetStoreServer({ port: 0, log: 'silent' })",
      'const url = await server.listen()',
      "const overHttp = await fetch(url + '/v1/pets?limit=2', { headers: { Authorization: 'Bearer test-free' } })",
      'await server.close()',
      'console.log(JSON.stringify({ inProcess: inProcess.status, overHttp: overHttp.status, openapi: openApiDocument().openapi, flaky: flaky.name, schema: typeof schema.$schema }))',
      '',
    ].join('\n'),
  )
  const { stdout } = await sh(process.execPath, ['exports-check.mjs'])
  expect(JSON.parse(stdout)).toEqual({ inProcess: 200, overHttp: 200, openapi: '3.1.0', flaky: 'flaky', schema: 'string' })
})

it('bundles petstore-mock/browser for the browser with no Node built-in', async () => {
  await writeFile(
    join(project, 'browser-entry.js'),
    "import { startPetStoreWorker } from 'petstore-mock/browser'\nexport const start = () => startPetStoreWorker({ seed: 1 })\n",
  )
  const specifiers = new Set<string>()
  const resolvedEntries: string[] = []
  const record: Plugin = {
    name: 'record-imports',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      specifiers.add(source)
      if (source === 'petstore-mock/browser') {
        const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
        if (resolved) resolvedEntries.push(resolved.id)
      }
      return null
    },
  }
  const result = await build({
    root: project,
    configFile: false,
    logLevel: 'silent',
    mode: 'production',
    plugins: [record],
    build: {
      write: false,
      minify: true,
      rolldownOptions: { input: join(project, 'browser-entry.js'), output: { format: 'es', codeSplitting: false } },
    },
  })
  const outputs = Array.isArray(result) ? result : [result]
  const chunks = outputs.flatMap((output) => ('output' in output ? output.output : [])).filter((item) => item.type === 'chunk')
  expect(chunks).toHaveLength(1)
  const [chunk] = chunks
  expect(resolvedEntries).toEqual([join(project, 'node_modules', 'petstore-mock', 'dist', 'src', 'browser.js')])
  expect([...specifiers].filter((specifier) => specifier.startsWith('node:') || isBuiltin(specifier))).toEqual([])
  expect(chunk?.moduleIds.filter((id) => id.includes('__vite-browser-external'))).toEqual([])
  expect(chunk?.imports).toEqual([])
  expect(chunk?.code).not.toMatch(/["'`]node:[a-z_/]+["'`]/)
})
