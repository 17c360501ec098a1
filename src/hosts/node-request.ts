/**
 * Reading a `node:http` request into the core's plain data: the raw body (capped) and the URL split
 * into path and query. Shared by the standalone server and the express middleware.
 */
import type { IncomingMessage } from 'node:http'

export interface Body {
  text: string | undefined
  tooLarge: boolean
  /** The body went past the drain limit: the socket is closed after the answer. */
  abandoned: boolean
}

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

export function readBody(req: IncomingMessage, max: number, drainLimit: number): Promise<Body> {
  if (!hasBody(req)) return Promise.resolve({ text: undefined, tooLarge: false, abandoned: false })
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > max) {
        tooLarge = true
        chunks.length = 0
        if (size > drainLimit) {
          req.pause()
          resolve({ text: undefined, tooLarge: true, abandoned: true })
        }
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve({ text: tooLarge ? undefined : Buffer.concat(chunks).toString('utf8'), tooLarge, abandoned: false }))
    req.on('error', reject)
  })
}

export function splitUrl(raw: string): { path: string; query: string } {
  let url = raw
  // Absolute-form request targets (as sent to proxies): keep the path.
  if (!url.startsWith('/')) {
    const scheme = url.indexOf('://')
    const slash = scheme === -1 ? -1 : url.indexOf('/', scheme + 3)
    url = slash === -1 ? '/' : url.slice(slash)
  }
  const q = url.indexOf('?')
  return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) }
}
