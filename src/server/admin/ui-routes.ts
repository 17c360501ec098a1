/**
 * The control panel's page (`GET /__mock/ui`) and its scripts (`GET /__mock/ui/panel/<file>.js`): the compiled modules
 * of src/panel, and the two of src/admin they use (`/__mock/ui/admin/<file>.js`: the admin interface and its HTTP
 * implementation), served as they are (no build step, nothing from another origin).
 * The page's Content-Security-Policy lets it load and call only this server, and no page may frame it.
 */
import { readFile } from 'node:fs/promises'
import type { Express } from 'express'
import { refuse } from './common.js'

/** Where the compiled modules live: beside this file in dist/, or dist/ itself when this file runs from src/. */
const dirsOf = (folder: string) => [new URL(`../../${folder}/`, import.meta.url), new URL(`../../../dist/src/${folder}/`, import.meta.url)]
const MODULE_DIRS = { panel: dirsOf('panel'), admin: dirsOf('admin') } as const

/** The admin modules the panel loads: they import nothing but each other (test/architecture/structure.test.ts). */
export const SERVED_ADMIN: ReadonlySet<string> = new Set(['operations.js', 'http-admin.js'])

/** Modules the in-page panel uses and the server's page does not: they import the world itself. */
export const IN_PAGE_ONLY: ReadonlySet<string> = new Set(['in-page.js', 'world-source.js'])

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>petstore-mock control panel</title>
<link rel="icon" href="data:,">
</head>
<body style="margin:0;background:#f6f7f9">
<div id="petstore-mock-panel"></div>
<script type="module" src="/__mock/ui/panel/ui-main.js"></script>
<noscript>The control panel needs JavaScript. The admin API (GET /__mock/requests, /__mock/keys, …) works without it.</noscript>
</body>
</html>
`

async function readModule(folder: keyof typeof MODULE_DIRS, name: string): Promise<string | undefined> {
  for (const dir of MODULE_DIRS[folder]) {
    try {
      return await readFile(new URL(name, dir), 'utf8')
    } catch {
      // Not in this folder: try the next.
    }
  }
  return undefined
}

/**
 * @example
 * addUiRoutes(app) // GET /__mock/ui, GET /__mock/ui/panel/ui-main.js, …
 */
export function addUiRoutes(app: Express): void {
  app.get(['/__mock/ui', '/__mock/ui/'], (_req, res) => {
    res.status(200).set(SECURITY_HEADERS).type('text/html; charset=utf-8').send(PAGE)
  })
  app.get('/__mock/ui/:folder/:file', async (req, res) => {
    const { folder, file } = req.params
    const served =
      /^[a-z][a-z0-9-]*\.js$/.test(file) &&
      ((folder === 'panel' && !IN_PAGE_ONLY.has(file)) || (folder === 'admin' && SERVED_ADMIN.has(file)))
    if (!served) return refuse(res, 'route_not_found', `The control panel has no file ${JSON.stringify(`${folder}/${file}`)}.`)
    const text = await readModule(folder as keyof typeof MODULE_DIRS, file)
    if (text === undefined) {
      return refuse(
        res,
        'route_not_found',
        `The control panel's file ${file} is missing: run "npm run build" (a clone running from src/ serves the panel from dist/).`,
      )
    }
    res.status(200).set(SECURITY_HEADERS).type('text/javascript; charset=utf-8').send(text)
  })
}
