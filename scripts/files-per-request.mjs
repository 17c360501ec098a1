#!/usr/bin/env node
/**
 * Prints which of the package's files one request enters: a `GET /v1/pets` and a `POST /v1/pets` through the
 * standalone server, and a `GET /v1/pets` through `petStore.fetch`, after warm-up requests like them. It reads V8's
 * precise coverage (the inspector's `Profiler.takePreciseCoverage`, which resets the counts each time it is taken)
 * around that one request, so a file is listed when any of its functions ran for it. Run after `npm run build`:
 *
 *   node scripts/files-per-request.mjs            # the table and each file list
 *   node scripts/files-per-request.mjs --json     # the same as JSON
 *
 * docs/architecture.md walks the same requests file by file; the targets are at most 14 files for the GET, 18 for
 * the POST and 11 for `petStore.fetch`.
 */
import { Session } from 'node:inspector/promises'
import { relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = resolve(fileURLToPath(import.meta.url), '../..')
const dist = pathToFileURL(resolve(root, 'dist/src')).href
const TARGETS = { 'GET /v1/pets (server)': 14, 'POST /v1/pets (server)': 18, 'GET /v1/pets (petStore.fetch)': 11 }

const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })

/** The package's files whose functions ran since the last call. */
async function entered() {
  const { result } = await session.post('Profiler.takePreciseCoverage')
  return result
    .filter((script) => script.url.startsWith(dist) && script.functions.some((fn) => fn.ranges.some((range) => range.count > 0)))
    .map((script) => relative(resolve(root, 'dist'), fileURLToPath(script.url)).replace(/\.js$/, '.ts'))
    .sort()
}

/** Waits for the turns after an answer (the delivered notice, the log line) to run. */
const settle = () => new Promise((done) => setTimeout(done, 50))

async function measure(send, warmups = 20) {
  for (let i = 0; i < warmups; i++) await send()
  await settle()
  await entered()
  await send()
  await settle()
  return entered()
}

const { createPetStoreServer } = await import(`${dist}/server/http-server.js`)
const { createPetStore } = await import(`${dist}/index.js`)

const server = createPetStoreServer({ host: '127.0.0.1', port: 0, log: 'silent' })
const url = await server.listen()
const auth = { authorization: 'Bearer test-enterprise' }
const results = {}
results['GET /v1/pets (server)'] = await measure(async () => {
  await (await fetch(`${url}/v1/pets?limit=20`, { headers: auth })).arrayBuffer()
})
results['POST /v1/pets (server)'] = await measure(async () => {
  await (
    await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    })
  ).arrayBuffer()
})
await server.close()

const petStore = createPetStore({ collection: false })
results['GET /v1/pets (petStore.fetch)'] = await measure(async () => {
  await (await petStore.fetch(new Request('http://localhost/v1/pets?limit=20', { headers: auth }))).arrayBuffer()
})
session.disconnect()

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(results, null, 2))
} else {
  console.log('| request | files entered | target |')
  console.log('|---|---:|---|')
  for (const [name, files] of Object.entries(results)) {
    const target = TARGETS[name]
    console.log(`| ${name} | ${files.length} | <= ${target}: ${files.length <= target ? 'met' : 'NOT met'} |`)
  }
  for (const [name, files] of Object.entries(results)) console.log(`\n${name}:\n  ${files.join('\n  ')}`)
}
