// An app that fetches on both sides, as a Next.js page with a server component and a client component does: the page's
// HTML holds the pets its server fetched; its script fetches them again from the browser. The server forwards the
// X-Mock-Session header of the request it renders to its own API call (docs/playwright.md, "Through the server").
//   node ssr-app.mjs PORT MOCK_URL
import { createServer } from 'node:http'

const [port = '4792', mock = 'http://127.0.0.1:4791'] = process.argv.slice(2)
const KEY = 'test-free'

async function listPets(session) {
  const headers = { authorization: `Bearer ${KEY}`, ...(session ? { 'x-mock-session': session } : {}) }
  const response = await fetch(`${mock}/v1/pets?limit=3`, { headers })
  return { status: response.status, names: response.ok ? (await response.json()).map((pet) => pet.name) : [] }
}

const page = (server) => `<!doctype html>
<title>Pets</title>
<p id="server">${server.status} ${server.names.join(', ')}</p>
<p id="client">loading</p>
<script>
  fetch(${JSON.stringify(`${mock}/v1/pets?limit=3`)}, { headers: { Authorization: 'Bearer ${KEY}' } })
    .then(async (response) => {
      const names = response.ok ? (await response.json()).map((pet) => pet.name) : []
      document.querySelector('#client').textContent = response.status + ' ' + names.join(', ')
    })
</script>`

createServer(async (req, res) => {
  if (req.url === '/health') return res.end('ok')
  // Only the page renders (a browser also asks for /favicon.ico).
  if (req.url !== '/') return res.writeHead(404).end()
  // The session the test's page sent (the fixture sets it on every request): forwarded to the mock.
  const session = req.headers['x-mock-session']
  const server = await listPets(typeof session === 'string' ? session : undefined)
  res.setHeader('content-type', 'text/html')
  res.end(page(server))
}).listen(Number(port), '127.0.0.1')
