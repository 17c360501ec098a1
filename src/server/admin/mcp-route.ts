/**
 * `/__mock/mcp`: the MCP server over streamable HTTP, on the sessions of this server (docs/mcp.md). Stateless: each
 * POST gets a server and transport of its own, as the SDK's stateless example does, so nothing is kept between calls
 * but the worlds. It sits behind the admin API's guard (access.ts): loopback, the admin token, the Host and Origin
 * checks apply to it as to every admin call.
 */
import type { Express, Request, Response } from 'express'
import { createWorldAdmin, type WorldAdminParts } from '../../admin/world-admin.js'
import type { ServerWorld } from '../../world/create-world.js'
import { INTEGRATIONS, loadIntegration } from '../integrations.js'
import { packageVersion } from './live-routes.js'

/** A JSON-RPC error answer outside the transport (no MCP session exists to answer it). */
function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null })
}

/** The SDK and the tools: loaded on the first MCP request, so the admin API's other calls (the panel, health) start without. */
const loadMcp = () =>
  loadIntegration('@modelcontextprotocol/sdk', INTEGRATIONS['@modelcontextprotocol/sdk'], () =>
    Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('../../mcp/server.js')]),
  )

/**
 * @example
 * addMcpRoute(app, worldAdminParts) // the admin routes' parts (app.ts)
 */
export function addMcpRoute(app: Express, parts: WorldAdminParts<ServerWorld>): void {
  const version = packageVersion()
  let loading: ReturnType<typeof loadMcp> | undefined
  const modules = () => {
    loading ??= loadMcp()
    // A missing SDK is said again at the next call (it may be installed meanwhile).
    loading.catch(() => {
      loading = undefined
    })
    return loading
  }
  app.post('/__mock/mcp', async (req: Request, res: Response) => {
    let body: unknown
    try {
      body = JSON.parse(typeof req.body === 'string' ? req.body : '')
    } catch {
      return rpcError(res, 400, -32700, 'Parse error: the body must be a JSON-RPC message (MCP streamable HTTP).')
    }
    const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await modules()
    // The admin routes' own operations, acting on the request's session by default.
    const admin = createWorldAdmin({ ...parts, defaultSession: res.locals.session as string })
    const server = createMcpServer(admin, version)
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res, body)
  })
  // Stateless: no stream to open (GET) and no session to end (DELETE).
  app.all('/__mock/mcp', (_req, res) => {
    res.set('allow', 'POST')
    rpcError(res, 405, -32000, 'Method not allowed: send MCP messages with POST (stateless streamable HTTP).')
  })
}
