// The ceiling for any server on Node (issue #18): plain node:http answering each route with a body built once at
// start-up, the same bytes and headers the same-work bare server sends, with no key check, no lookup and no
// serialization per request. A POST's body is read (a server has to) and thrown away.
import { createServer } from 'node:http'

const port = Number(process.argv[2] ?? 4202)
const statuses = ['available', 'pending', 'sold']
const pet = (i) => ({ id: i, name: `Pet ${i}`, categoryId: (i % 10) + 1, status: statuses[i % 3] })
const list = JSON.stringify(Array.from({ length: 20 }, (_, i) => pet(i + 1)))
const one = JSON.stringify(pet(5000))
const created = JSON.stringify({ id: 10001, name: 'Rex', categoryId: 3, status: 'available' })
const headers = (body) => ({
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(body)),
  'x-ratelimit-limit': '1000000',
  'x-ratelimit-remaining': '999999',
  'x-ratelimit-reset': '1790000000',
})

createServer((req, res) => {
  if (req.method === 'POST') {
    req.resume()
    req.on('end', () => {
      res.writeHead(201, { ...headers(created), location: '/v1/pets/10001' })
      res.end(created)
    })
    return
  }
  const body = req.url.startsWith('/v1/pets?') ? list : one
  res.writeHead(200, headers(body))
  res.end(body)
}).listen(port, '127.0.0.1')
