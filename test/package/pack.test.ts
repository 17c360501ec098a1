/**
 * The package as a user gets it: `npm pack`, the tarball installed into an empty project next to msw
 * from the registry (the run's one `npm install`, ./consumer-setup.ts), then each entry used the way the README says.
 * Slow (an install), so it is its own vitest project: `npx vitest run --project package`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build, type Plugin } from 'vite'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { copyConsumer, type PackedFile, ROOT, STRICT, sh as shIn, TSC } from './consumer.js'

const run = promisify(execFile)
const BANNER = /^petstore-mock \S+ listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/

let workDir: string
let project: string
let packed: PackedFile[]
let pkg: { version: string }
const children = new Set<ChildProcess>()

/** Runs a command in the temporary project; rejects with its output when it fails. */
const sh = (command: string, args: string[], cwd = project) => shIn(command, args, cwd)

beforeAll(async () => {
  pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'))
  ;({ workDir, project, packed } = await copyConsumer('petstore-mock-pack-'))
})

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGKILL')
  }
  if (workDir) await rm(workDir, { recursive: true, force: true })
})

it('packs the built entries, the scenarios, the licence, and not the docs (read on the repository: decision 029)', () => {
  const paths = packed.map((file) => file.path)
  expect(paths).toContain('LICENSE')
  // The Postman collection, and the control panel's modules the server serves.
  expect(paths).toContain('postman/petstore-mock.postman_collection.json')
  expect(paths).toContain('dist/src/panel/ui-main.js')
  for (const entry of ['index', 'node', 'browser', 'http', 'vitest', 'jest', 'check', 'cli/main']) {
    expect(paths).toContain(`dist/src/${entry}.js`)
    expect(paths).toContain(`dist/src/${entry}.d.ts`)
  }
  expect(paths).toContain('scenarios/scenario.schema.json')
  expect(paths).toContain('config.schema.json')
  // The report card's reference clients: `check-client -- node node_modules/petstore-mock/examples/clients/correct.mjs`.
  expect(paths).toContain('examples/clients/correct.mjs')
  expect(paths).toContain('examples/clients/curl-client.sh')
  expect(paths.filter((path) => path.startsWith('docs/'))).toEqual([])
})

it('packs no tests, source maps, sources or any file outside its folders', () => {
  const paths = packed.map((file) => file.path)
  expect(
    paths.filter(
      (path) =>
        !/^(dist\/(src|fixtures|scenarios)\/|scenarios\/|postman\/|examples\/clients\/|README\.md$|LICENSE$|package\.json$|config\.schema\.json$)/.test(
          path,
        ),
    ),
  ).toEqual([])
  expect(paths.filter((path) => /\.test\.|\.map$|(?<!\.d)\.ts$/.test(path))).toEqual([])
})

/** Starts `npx petstore-mock --port 0` in the temporary project and waits for its banner. */
async function startWithNpx() {
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
  // npx itself dies of the signal; the server's own clean stop is what its log says. Waited for until the pipe
  // closes, which the server (npx's child, holding the same stdout) does only when it exits: npx's own exit may
  // come before the server's last line is read.
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()))
  const stop = async (): Promise<void> => {
    process.kill(-(child.pid as number), 'SIGTERM')
    await exited
  }
  return { url, stdout: () => stdout, stop }
}

it('starts with `npx petstore-mock --port 0`, printing its banner', async () => {
  const { url, stdout, stop } = await startWithNpx()
  expect(stdout().split('\n')[0]).toBe(`petstore-mock ${pkg.version} listening on ${url}`)
  await stop()
})

it('answers GET /v1/pets when started with npx', async () => {
  const { url, stop } = await startWithNpx()
  const response = await fetch(`${url}/pets?limit=3`, { headers: { Authorization: 'Bearer test-free' } })
  expect(response.status).toBe(200)
  expect(response.headers.get('x-ratelimit-limit')).toBe('60')
  expect(await response.json()).toHaveLength(3)
  await stop()
})

it('stops cleanly on SIGTERM when started with npx', async () => {
  const { stdout, stop } = await startWithNpx()
  await stop()
  expect(stdout()).toContain('petstore-mock: SIGTERM, finishing in-flight requests')
})

/** The user's file of the core, the http server and petstore-mock/node, for the project's msw. */
const nodeCheck = () =>
  [
    "import { createPetStore, type Pet } from 'petstore-mock'",
    "import { petStoreMiddleware } from 'petstore-mock/http'",
    "import { onUnhandled, setupPetStoreServer } from 'petstore-mock/node'",
    '',
    'const middleware = petStoreMiddleware(createPetStore({ seed: 2 }))',
    'const { server, petStore } = setupPetStoreServer({ seed: 1 })',
    // The same line for msw 2 (the oldest lane, and npm's pick on Node 20) and msw 3, which renamed the option.
    "server.listen(onUnhandled('error'))",
    // A request no handler answers fails, in either msw, instead of passing to the network unnoticed.
    "const unhandled = await fetch('http://127.0.0.1:9/elsewhere').then(() => 'passed', () => 'failed')",
    "const response = await fetch('https://api.petstore.test/v1/pets?limit=5', { headers: { Authorization: 'Bearer test-pro' } })",
    'const pets = (await response.json()) as Pet[]',
    "await petStore.pets.create({ id: 1000, name: 'Rex', categoryId: 2, status: 'sold' })",
    "const journal = petStore.journal.find({ method: 'GET', path: '/v1/pets' })",
    "console.log(JSON.stringify({ status: response.status, limit: response.headers.get('x-ratelimit-limit'), pets: pets.length, journal: journal.length, middleware: typeof middleware, unhandled }))",
    'server.close()',
    '',
  ].join('\n')

let userProgram: Promise<string> | undefined
/**
 * What a user's strict NodeNext project gets: node-check.ts (the core, the http server, petstore-mock/node), and the
 * vitest and Jest matcher checks, compiled as ONE program with the package's declarations checked (skipLibCheck off),
 * the way one project holds all three. One program, not three: the declarations of msw, vitest and Jest are checked
 * once instead of three times (the costliest step of this file on the main lane's TypeScript 5.9). None of the three
 * can pass for another: the matchers' checks each import their own augmentation, and node-check uses no matcher.
 * Emits to out/ (the next test runs out/node-check.js). Resolves with the compiler's output (empty when clean).
 */
const compileUserProgram = (): Promise<string> => {
  userProgram ??= (async () => {
    await writeFile(join(project, 'node-check.ts'), nodeCheck())
    await writeFile(join(project, 'vitest-check.ts'), VITEST_CHECK)
    await writeFile(join(project, 'jest-check.ts'), JEST_CHECK)
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...STRICT, outDir: 'out' }, files: ['node-check.ts', 'vitest-check.ts', 'jest-check.ts'] }),
    )
    try {
      const { stdout } = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, timeout: 180_000 })
      return stdout
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string }
      return `${stdout ?? ''}${stderr ?? ''}`
    }
  })()
  return userProgram
}

/** The errors of the user program in `file`, and those in any declaration file (each check needs them clean). */
async function userProgramErrors(file: string): Promise<string[]> {
  const ours = ['node-check.ts', 'vitest-check.ts', 'jest-check.ts']
  const output = await compileUserProgram()
  const errors = output.split('\n').filter((line) => /error TS\d+/.test(line))
  // A compiler that failed without a TS error (it crashed, or was killed at the ceiling) fails every check.
  if (output !== '' && errors.length === 0) return [output]
  return errors.filter((line) => line.startsWith(file) || !ours.some((name) => line.startsWith(name)))
}

it('type-checks a strict NodeNext TypeScript file that imports petstore-mock/node', async () => {
  expect(await userProgramErrors('node-check.ts')).toEqual([])
})

it('runs a file that imports petstore-mock/node through setupServer', async () => {
  // Emitted even when a check above found an error: this test says whether it runs.
  await compileUserProgram()
  const { stdout } = await sh(process.execPath, ['out/node-check.js'])
  expect(JSON.parse(stdout)).toEqual({ status: 200, limit: '300', pets: 5, journal: 1, middleware: 'function', unhandled: 'failed' })
})

it('resolves by their exports the core, the http server, the scenario files, their JSON Schema', async () => {
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

/** Copies an example folder of this repository into the temporary project, where it imports the installed tarball. */
async function copyExample(name: string): Promise<{ dir: string; tests: string[] }> {
  const dir = join(project, name)
  await cp(join(ROOT, 'examples', name), dir, { recursive: true, filter: (source) => !source.includes('node_modules') })
  // The names the runner must report as passed: every `it('...')` of the example.
  const source = await readFile(join(dir, 'pets.test.js'), 'utf8')
  const tests = [...source.matchAll(/\bit\('([^']+)'/g)].map((match) => match[1] ?? '')
  return { dir, tests }
}

/**
 * Type-checks one file of the temporary project as its own program (so no other file's imports augment it).
 * `skipLibCheck: true` only where the answer is an error in the file itself, to save a full check of vitest's types.
 */
async function typeCheck(file: string, source: string, options: { skipLibCheck?: boolean } = {}): Promise<{ ok: boolean; output: string }> {
  await writeFile(join(project, file), source)
  const config = `tsconfig.${file.replace(/\.ts$/, '')}.json`
  await writeFile(join(project, config), JSON.stringify({ compilerOptions: { ...STRICT, ...options, noEmit: true }, files: [file] }))
  try {
    const { stdout } = await run(process.execPath, [TSC, '-p', config], { cwd: project, timeout: 180_000 })
    return { ok: true, output: stdout }
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    return { ok: false, output: `${stdout ?? ''}${stderr ?? ''}` }
  }
}

const VITEST_CHECK = [
  "import { createPetStore } from 'petstore-mock'",
  "import 'petstore-mock/vitest'",
  "import { expect } from 'vitest'",
  '',
  'const petStore = createPetStore({ seed: 1 })',
  'expect(petStore).toHaveNoRetryViolations()',
  'expect(petStore).not.toHaveBackedOff()',
  '',
].join('\n')
const WITHOUT_AUGMENTATION = VITEST_CHECK.replace("import 'petstore-mock/vitest'\n", '')

it('runs examples/jest with Jest 30 in native ESM against the tarball', async () => {
  const { dir, tests } = await copyExample('jest')
  expect(tests.length).toBeGreaterThanOrEqual(5)
  // Jest writes its report to stderr; a failing test exits non-zero and `sh` throws with the report.
  const { stdout, stderr } = await sh(
    process.execPath,
    ['--experimental-vm-modules', join(project, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--verbose'],
    dir,
  )
  const output = stdout + stderr
  expect(output).toMatch(new RegExp(`Tests:\\s+${tests.length} passed, ${tests.length} total`))
  for (const test of tests) expect(output).toContain(`✓ ${test}`)
})

it('runs examples/node-test with node --test against the tarball', async () => {
  const { dir, tests } = await copyExample('node-test')
  expect(tests.length).toBeGreaterThanOrEqual(5)
  const { stdout } = await sh(process.execPath, ['--test', '--test-reporter=spec'], dir)
  expect(stdout).toMatch(new RegExp(`pass ${tests.length}\\n`))
  expect(stdout).toMatch(/fail 0\n/)
  for (const test of tests) expect(stdout).toContain(`✔ ${test}`)
})

const JEST_CHECK = [
  "import { expect } from '@jest/globals'",
  "import { createPetStore } from 'petstore-mock'",
  "import { petStoreMatchers } from 'petstore-mock/jest'",
  '',
  'expect.extend(petStoreMatchers)',
  'const petStore = createPetStore({ seed: 1 })',
  'expect(petStore).toHaveNoRetryViolations()',
  'expect(petStore).not.toHaveBackedOff()',
  'const resolved: Promise<void> = expect(Promise.resolve(petStore)).resolves.toHaveNoRetryViolations()',
  'await resolved',
  '',
].join('\n')

it('type-checks expect(petStore).toHaveNoRetryViolations() with the project vitest (4; 5 in the Node 24 lane)', async () => {
  expect(await userProgramErrors('vitest-check.ts')).toEqual([])
})

it('type-checks expect(petStore).toHaveNoRetryViolations() with Jest', async () => {
  expect(await userProgramErrors('jest-check.ts')).toEqual([])
})

it('does not type-check expect(petStore).toHaveNoRetryViolations() without the augmentation', async () => {
  const missing = await typeCheck('vitest-missing.ts', WITHOUT_AUGMENTATION, { skipLibCheck: true })
  // Without `import 'petstore-mock/vitest'` the same file fails, so it is the augmentation that makes it pass.
  expect(missing.ok).toBe(false)
  // vitest 4 writes the type `Assertion<PetStore>`, vitest 5 `Assertion<void, PetStore>`.
  expect(missing.output).toMatch(/error TS2339: Property 'toHaveNoRetryViolations' does not exist on type 'Assertion<(void, )?PetStore>'/)
})

it("refuses a matcher that does not exist: vitest's Assertion is not `any`", async () => {
  const unknown = await typeCheck('vitest-unknown.ts', VITEST_CHECK.replace('toHaveNoRetryViolations', 'toHaveNoSuchMatcher'), {
    skipLibCheck: true,
  })
  expect(unknown.ok).toBe(false)
  expect(unknown.output).toContain("error TS2339: Property 'toHaveNoSuchMatcher' does not exist")
})

// Last: it installs vitest 3.2 over the project's vitest in the temporary project. The oldest vitest we support is
// the main lane's to check (it keeps the oldest of each tool); the Node 24 lane brings today's (PETSTORE_CONSUMER_VITEST).
it.skipIf(process.env['PETSTORE_CONSUMER_VITEST'] !== undefined)('type-checks the vitest matchers with vitest 3.2 too', async () => {
  await sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', 'vitest@3.2'])
  const installed = JSON.parse(await readFile(join(project, 'node_modules', 'vitest', 'package.json'), 'utf8')) as { version: string }
  expect(installed.version).toMatch(/^3\.2\./)
  // What this adds to the project-vitest test above, which checks our declarations (skipLibCheck off): the
  // augmentation reaches vitest 3.2's `expect`. So the declarations are not checked again here (skipLibCheck on):
  // that was 15 CPU-s of TypeScript 5.9, and TypeScript 7 finds vitest 3.2's own declarations at odds with
  // @types/chai ("Duplicate identifier 'containSubset'", in files of theirs).
  const [vitest, missing] = await Promise.all([
    typeCheck('vitest3-check.ts', VITEST_CHECK, { skipLibCheck: true }),
    typeCheck('vitest3-missing.ts', WITHOUT_AUGMENTATION, { skipLibCheck: true }),
  ])
  expect(vitest).toEqual({ ok: true, output: '' })
  expect(missing.output).toContain("error TS2339: Property 'toHaveNoRetryViolations' does not exist")
})
