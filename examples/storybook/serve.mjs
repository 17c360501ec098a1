// Serves the built Storybook (storybook-static/) on 127.0.0.1, as any static host would: `node serve.mjs [port]`.
import { createReadStream, statSync } from 'node:fs'
import { createServer } from 'node:http'
import { extname, join } from 'node:path'

const root = 'storybook-static'
const port = Number(process.argv[2] ?? 4820)
// The browser registers msw's worker script only when it is served as JavaScript.
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml' }

createServer((request, response) => {
  const { pathname } = new URL(request.url, 'http://127.0.0.1')
  const file = join(root, decodeURIComponent(pathname.endsWith('/') ? `${pathname}index.html` : pathname))
  if (!file.startsWith(root) || !statSync(file, { throwIfNoEntry: false })?.isFile()) return response.writeHead(404).end()
  response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
  createReadStream(file).pipe(response)
}).listen(port, '127.0.0.1')
