// Specmatic's contract test, as a QA team runs it against the mock: the standalone server started on a loopback port,
// its OpenAPI document saved as it serves it, and `specmatic test` sending the document's named examples (no example
// files of its own) with the Bearer key from the variable named after the document's security scheme, `bearerAuth`.
// Exits with Specmatic's status, and 1 when it ran fewer tests than the document's three named examples.
import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'

const port = process.env.PETSTORE_MOCK_PORT ?? '4830'
const mock = `http://127.0.0.1:${port}`
const server = spawn('npx', ['petstore-mock', '--port', port, '--log', 'silent'], { stdio: 'inherit', detached: true })
const stop = () => {
  try {
    process.kill(-server.pid, 'SIGTERM')
  } catch {}
}
process.on('exit', stop)

async function health() {
  for (let tries = 0; tries < 300; tries++) {
    const ok = await fetch(`${mock}/__mock/health`).then(
      (response) => response.ok,
      () => false,
    )
    if (ok) return
    await new Promise((done) => setTimeout(done, 100))
  }
  throw new Error(`the mock did not answer ${mock}/__mock/health within 30 s`)
}

await health()
const document = await (await fetch(`${mock}/__mock/openapi.json`)).text()
await writeFile('petstore.openapi.json', document)

const output = await new Promise((done) => {
  const specmatic = spawn('npx', ['specmatic', 'test', 'petstore.openapi.json', `--testBaseURL=${mock}/v1`], {
    env: { ...process.env, bearerAuth: 'test-pro' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let text = ''
  specmatic.stdout.on('data', (chunk) => {
    process.stdout.write(chunk)
    text += chunk
  })
  specmatic.on('close', (code) => done({ code, text }))
})
const run = /Tests run: (\d+), Successes: (\d+), Failures: (\d+)/.exec(output.text)
const ran = Number(run?.[1] ?? 0)
if (output.code !== 0 || ran < 3) {
  console.error(`Specmatic exited ${output.code} after ${ran} test(s); the document names three examples.`)
  process.exitCode = 1
}
stop()
