// The limit for this work on Node (issue #8): bare node:http doing the mock's work by hand, with no
// framework: auth against a Map, the status filter with an early stop, JSON.stringify; a Map for ids.
import { createServer } from 'node:http'

const port = Number(process.argv[2] ?? 4201)
const count = Number(process.argv[3] ?? 10000)
const keys = new Map([['bench-key', { plan: 'enterprise' }]])
const statuses = ['available', 'pending', 'sold']
const pets = []
const byId = new Map()
for (let i = 1; i <= count; i++) {
  const pet = { id: i, name: `Pet ${i}`, categoryId: (i % 10) + 1, status: statuses[i % 3] }
  pets.push(pet)
  byId.set(i, pet)
}
let nextId = count + 1
const headers = () => ({
  'content-type': 'application/json',
  'x-ratelimit-limit': '1000000',
  'x-ratelimit-remaining': '999999',
  'x-ratelimit-reset': '1790000000',
})

createServer((req, res) => {
  const auth = req.headers.authorization
  const key = auth?.startsWith('Bearer ') ? keys.get(auth.slice(7)) : undefined
  if (!key) {
    res.writeHead(401, { 'content-type': 'application/json' })
    return res.end('{"code":"unauthorized","message":"Missing or invalid API key","status":401}')
  }
  const url = new URL(req.url, 'http://x')
  if (req.method === 'GET' && url.pathname === '/v1/pets') {
    const limit = Number(url.searchParams.get('limit') ?? 20)
    const status = url.searchParams.get('status')
    const out = []
    for (const pet of pets) {
      if (status && pet.status !== status) continue
      out.push(pet)
      if (out.length === limit) break
    }
    const body = JSON.stringify(out)
    res.writeHead(200, headers())
    return res.end(body)
  }
  if (req.method === 'GET' && url.pathname.startsWith('/v1/pets/')) {
    const pet = byId.get(Number(url.pathname.slice(9)))
    res.writeHead(pet ? 200 : 404, headers())
    return res.end(pet ? JSON.stringify(pet) : '{"code":"pet_not_found","message":"No pet","status":404}')
  }
  if (req.method === 'POST' && url.pathname === '/v1/pets') {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => {
      text += chunk
    })
    req.on('end', () => {
      let input
      try {
        input = JSON.parse(text)
      } catch {
        input = undefined
      }
      if (!input || typeof input.name !== 'string' || !Number.isInteger(input.categoryId)) {
        res.writeHead(400, headers())
        return res.end('{"code":"invalid_body","message":"Invalid NewPet","status":400}')
      }
      const pet = { id: nextId++, name: input.name, categoryId: input.categoryId, ...(input.status ? { status: input.status } : {}) }
      pets.push(pet)
      byId.set(pet.id, pet)
      res.writeHead(201, { ...headers(), location: `/v1/pets/${pet.id}` })
      res.end(JSON.stringify(pet))
    })
    return
  }
  res.writeHead(404, { 'content-type': 'application/json' })
  res.end('{"code":"route_not_found","message":"No route","status":404}')
}).listen(port, '127.0.0.1')
