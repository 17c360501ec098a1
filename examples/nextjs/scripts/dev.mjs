// `npm run dev`: the mock and `next dev` together. The mock runs in this process and `next dev` is its child, so one
// Ctrl-C stops both and the app gets the mock's address in its environment: no extra package, no bundler involved.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { createPetStoreServer } from 'petstore-mock/http'

const mock = createPetStoreServer({ port: Number(process.env.PETSTORE_MOCK_PORT ?? 4010), seed: 1 })
const url = await mock.listen()
console.log(`petstore-mock on ${url}`)

const next = createRequire(import.meta.url).resolve('next/dist/bin/next')
const app = spawn(process.execPath, [next, 'dev', '--hostname', '127.0.0.1'], {
  stdio: 'inherit',
  env: { NEXT_TELEMETRY_DISABLED: '1', PETSTORE_KEY: 'test-free', ...process.env, PETSTORE_URL: url },
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => app.kill(signal))
app.on('exit', async (code) => {
  await mock.close()
  process.exit(code ?? 0)
})
