/** A user's express app with the mock mounted, listening on loopback, for the express host's tests. */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import type { World } from '../../src/index.js'
import { petStoreMiddleware } from '../../src/server/express.js'

export interface ExpressHost {
  /** The app's origin, e.g. `http://127.0.0.1:54321`; the API is under `${origin}${mount}/v1`. */
  origin: string
  close(): Promise<void>
}

/** Mounts `petStore` at `mount` in a new express app, after a route of the app's own, and listens. */
export async function startExpressHost(petStore: Pick<World, 'handle' | 'basePath' | 'markDelivered'>, mount = '/'): Promise<ExpressHost> {
  const app = express()
  app.get('/health', (_req, res) => {
    res.send('app ok')
  })
  app.use(mount, petStoreMiddleware(petStore))
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening))
  })
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
