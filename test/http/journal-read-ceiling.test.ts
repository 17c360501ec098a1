/**
 * Regression (docs/spec-decisions.md rows 59 and 61): 1,000 rejected 1 MiB bodies of NUL bytes. The journal keeps a
 * 16 KiB prefix of each; written as JSON, each prefix was 96 KiB of `\u0000` (twice), so one
 * `GET /__mock/requests?limit=1000` answered 197.5 MB, built whole. Now a page stops at the byte ceiling and says where,
 * the body is shown as base64, and the HAR export too. The journal keeps the same 16 KiB prefix of any body longer than
 * that, so 64 KiB bodies build the same journal as 1 MiB ones for a sixteenth of the upload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BODY_PREFIX_CHARS } from '../../src/journal/journal.js'
import { READ_MAX_BYTES } from '../../src/server/admin/admin-reads.js'
import { auth, closeServers, startServer } from './support.js'

const SESSION = { 'x-mock-session': 'nul-bodies' }
const ENTRIES = 1_000

let url = ''

/** Bytes of each body: four times what the journal keeps of it. */
const BODY_BYTES = 4 * BODY_PREFIX_CHARS

/** Sends `count` POSTs of a body of NUL bytes (a valid UTF-8 text, not JSON: each answered 400), four at a time. */
async function sendNulBodies(count: number): Promise<void> {
  const body = new Uint8Array(BODY_BYTES)
  let sent = 0
  const client = async () => {
    while (sent < count) {
      sent += 1
      const response = await fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers: auth('test-enterprise', { 'content-type': 'application/json', ...SESSION }),
        body,
      })
      await response.arrayBuffer()
      if (response.status !== 400) throw new Error(`expected 400, got ${response.status}`)
    }
  }
  await Promise.all([client(), client(), client(), client()])
}

/** The response's body as bytes, counted as they arrive. */
async function read(path: string): Promise<{ response: Response; bytes: Uint8Array }> {
  const response = await fetch(`${url}${path}`, { headers: SESSION })
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) }
}

const json = <T>(bytes: Uint8Array): T => JSON.parse(new TextDecoder().decode(bytes)) as T
const nextLink = (response: Response): string | undefined => /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1]

interface Entry {
  seq: number
  body?: unknown
  bodyText?: string
  bodyEncoding?: string
  bodyTruncated: boolean
}

beforeAll(async () => {
  ;({ url } = await startServer({ journalLimit: ENTRIES }))
  await sendNulBodies(ENTRIES)
})

afterAll(closeServers)

describe('GET /__mock/requests?limit=1000 over 1,000 entries of 64 KiB NUL bodies', () => {
  it('answers within the byte ceiling', async () => {
    const { bytes } = await read('/__mock/requests?limit=1000')
    expect(bytes.length).toBeGreaterThan(0)
    expect(bytes.length).toBeLessThanOrEqual(READ_MAX_BYTES)
  })

  it('says in X-Mock-Page-Stopped that the ceiling stopped it, with the cursor before its oldest entry', async () => {
    const { response, bytes } = await read('/__mock/requests?limit=1000')
    const entries = json<Entry[]>(bytes)
    expect(entries.length).toBeLessThan(ENTRIES)
    expect(response.headers.get('x-mock-page-stopped')).toBe(`max-bytes=${READ_MAX_BYTES}; before=${entries[0]?.seq}`)
  })

  it('gives a Link to the next page that goes on where it stopped, until every entry was read once', async () => {
    const seen: number[] = []
    let path: string | undefined = '/__mock/requests?limit=1000'
    for (let pages = 0; path !== undefined && pages < 20; pages++) {
      const { response, bytes } = await read(path)
      seen.unshift(...json<Entry[]>(bytes).map((entry) => entry.seq))
      path = nextLink(response)
    }
    expect(path).toBeUndefined()
    expect(seen).toEqual(Array.from({ length: ENTRIES }, (_, i) => i + 1))
  })

  it('shows a body of NUL bytes as the base64 of its kept 16 KiB, without the parsed body', async () => {
    const { bytes } = await read('/__mock/requests?limit=1')
    const [entry] = json<Entry[]>(bytes)
    expect(entry?.bodyEncoding).toBe('base64')
    expect(entry?.body).toBeUndefined()
    expect(entry?.bodyTruncated).toBe(true)
    expect(Buffer.from(entry?.bodyText ?? '', 'base64')).toEqual(Buffer.alloc(16 * 1024))
  })

  it('shows one entry (GET /__mock/requests/:seq) the same way', async () => {
    const { bytes } = await read(`/__mock/requests/${ENTRIES}`)
    const entry = json<Entry>(bytes)
    expect(entry.bodyEncoding).toBe('base64')
    expect(Buffer.from(entry.bodyText ?? '', 'base64')).toEqual(Buffer.alloc(16 * 1024))
  })
})

describe('GET /__mock/requests.har over the same journal', () => {
  it('answers within the byte ceiling, its newest entries first in line', async () => {
    const { response, bytes } = await read('/__mock/requests.har')
    expect(bytes.length).toBeLessThanOrEqual(READ_MAX_BYTES)
    const har = json<{ log: { entries: unknown[] } }>(bytes)
    expect(har.log.entries.length).toBeGreaterThan(0)
    expect(har.log.entries.length).toBeLessThan(ENTRIES)
    expect(response.headers.get('x-mock-page-stopped')).toMatch(new RegExp(`^max-bytes=${READ_MAX_BYTES}; before=\\d+$`))
  })

  it('links the next part of the export, the older entries', async () => {
    const first = await read('/__mock/requests.har')
    const next = nextLink(first.response)
    expect(next).toMatch(/^\/__mock\/requests\.har\?before=\d+$/)
    const second = await read(next as string)
    expect(second.response.status).toBe(200)
    expect(json<{ log: { entries: unknown[] } }>(second.bytes).log.entries.length).toBeGreaterThan(0)
  })

  it('writes a body of NUL bytes as base64, marked _encoding', async () => {
    const { bytes } = await read('/__mock/requests.har?limit=1')
    const har = json<{ log: { entries: { request: { postData: { text: string; _encoding?: string } } }[] } }>(bytes)
    const postData = har.log.entries[0]?.request.postData
    expect(postData?._encoding).toBe('base64')
    expect(Buffer.from(postData?.text ?? '', 'base64')).toEqual(Buffer.alloc(16 * 1024))
  })
})
