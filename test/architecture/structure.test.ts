/**
 * The shape of the house, checked on every run: files and functions short enough to
 * read, no import cycle, no import pointing up a layer, and a core free of hosts and libraries.
 * The layers are the ones docs/architecture.md draws.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { IN_PAGE_ONLY, SERVED_ADMIN } from '../../src/server/admin/ui-routes.js'

const ROOT = resolve(import.meta.dirname, '../..')
const SRC = join(ROOT, 'src')
const MAX_FILE_LINES = 300
const MAX_FUNCTION_LINES = 80

/**
 * Layers from the bottom up: a file may import its own layer or a lower one, never a higher one. `keys.ts` and
 * `snapshot.ts` are facts of src/ like the spec's, but read the core's types and its lossless JSON, so they sit above it.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['spec.ts', 'schemas.ts', 'wire.ts', 'clock.ts', 'openapi.ts', 'openapi-headers.ts'],
  ['core/'],
  ['store/', 'journal/', 'scenarios/', 'keys.ts', 'snapshot.ts', 'snapshot-slices.ts'],
  ['handlers/'],
  ['world/'],
  // The one admin interface (operations.ts) and its two implementations, over worlds and over HTTP.
  ['admin/'],
  // The MCP tools act on worlds and are served by the server (`/__mock/mcp`) and the CLI (`petstore-mock mcp`).
  ['mcp/'],
  ['server/', 'panel/'],
  [
    'cli/',
    'verify/',
    'check/',
    'check.ts',
    'index.ts',
    'node.ts',
    'browser.ts',
    'http.ts',
    'vitest.ts',
    'jest.ts',
    'playwright.ts',
    'storybook.ts',
    'create-pet-store.ts',
    'matchers.ts',
  ],
]

const layerOf = (file: string): number => {
  const index = LAYERS.findIndex((layer) => layer.some((place) => (place.endsWith('/') ? file.startsWith(place) : file === place)))
  if (index === -1) throw new Error(`${file} is in no layer of test/architecture/structure.test.ts: add it to one.`)
  return index
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

interface Parsed {
  file: string
  lines: number
  /** Files of src/ this file imports (value, type-only or dynamic `import()`), relative to src/. */
  imports: { target: string; typeOnly: boolean; dynamic?: true }[]
  /** Packages and node built-ins this file imports at run time. */
  packages: string[]
  functions: { name: string; lines: number }[]
  /** Classes that extend one of JavaScript's own error classes directly (`Error`, `TypeError`, …). */
  errorClasses: string[]
}

function parse(path: string): Parsed {
  const text = readFileSync(path, 'utf8')
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const file = relative(SRC, path)
  const parsed: Parsed = { file, lines: text.split('\n').length, imports: [], packages: [], functions: [], errorClasses: [] }
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const specifier = node.moduleSpecifier.text
      const typeOnly = ts.isImportDeclaration(node) ? (node.importClause?.isTypeOnly ?? false) : node.isTypeOnly
      if (specifier.startsWith('.')) {
        const target = relative(SRC, resolve(dirname(path), specifier)).replace(/\.js$/, '.ts')
        if (target.endsWith('.ts')) parsed.imports.push({ target, typeOnly })
      } else if (!typeOnly) parsed.packages.push(specifier)
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      // A dynamic import is an edge like a static one: it only loads later.
      if (argument && ts.isStringLiteral(argument) && argument.text.startsWith('.'))
        parsed.imports.push({
          target: relative(SRC, resolve(dirname(path), argument.text)).replace(/\.js$/, '.ts'),
          typeOnly: false,
          dynamic: true,
        })
      else if (argument && ts.isStringLiteral(argument)) parsed.packages.push(argument.text)
    }
    if (ts.isClassLike(node)) {
      const base = node.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression
      if (base && ts.isIdentifier(base) && /^(Error|TypeError|RangeError|SyntaxError)$/.test(base.text))
        parsed.errorClasses.push(`${file}: ${node.name?.text ?? '(anonymous)'} extends ${base.text}`)
    }
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : `(anonymous at line ${lineOf(node.getStart()) + 1})`
      parsed.functions.push({ name, lines: lineOf(node.getEnd()) - lineOf(node.getStart()) + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return parsed
}

const files = sourceFiles(SRC).map(parse)
const byFile = new Map(files.map((parsed) => [parsed.file, parsed]))

describe('the structure of src/', () => {
  it(`has no source file over ${MAX_FILE_LINES} lines`, () => {
    expect(files.filter((parsed) => parsed.lines > MAX_FILE_LINES).map((parsed) => `${parsed.file} (${parsed.lines})`)).toEqual([])
  })

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap((parsed) =>
      parsed.functions.filter((fn) => fn.lines > MAX_FUNCTION_LINES).map((fn) => `${parsed.file}: ${fn.name} (${fn.lines})`),
    )
    expect(long).toEqual([])
  })

  it('has no import pointing up a layer', () => {
    const up = files.flatMap((parsed) =>
      parsed.imports.filter(({ target }) => layerOf(target) > layerOf(parsed.file)).map(({ target }) => `${parsed.file} -> ${target}`),
    )
    expect(up).toEqual([])
  })

  it('has no import cycle', () => {
    const cycles: string[] = []
    const state = new Map<string, 'visiting' | 'done'>()
    const walk = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '))
        return
      }
      state.set(file, 'visiting')
      for (const { target } of byFile.get(file)?.imports ?? []) walk(target, [...path, file])
      state.set(file, 'done')
    }
    for (const parsed of files) walk(parsed.file, [])
    expect(cycles).toEqual([])
  })

  it('has no folder loop: no two folders of src/ (or files of src/ itself) reach each other by imports', () => {
    const placeOf = (file: string): string => (file.includes('/') ? `${file.slice(0, file.indexOf('/'))}/` : file)
    const edges = new Map<string, Set<string>>()
    for (const parsed of files) {
      const from = placeOf(parsed.file)
      for (const { target } of parsed.imports) {
        const to = placeOf(target)
        if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to))
      }
    }
    const loops: string[] = []
    const state = new Map<string, 'visiting' | 'done'>()
    const walk = (place: string, path: string[]): void => {
      if (state.get(place) === 'done') return
      if (state.get(place) === 'visiting') {
        loops.push([...path.slice(path.indexOf(place)), place].join(' -> '))
        return
      }
      state.set(place, 'visiting')
      for (const to of edges.get(place) ?? []) walk(to, [...path, place])
      state.set(place, 'done')
    }
    for (const place of edges.keys()) walk(place, [])
    expect(loops).toEqual([])
  })

  it('keeps the core free of host packages (msw, express, node:*, faker, @msw/data)', () => {
    const core = files.filter((parsed) => parsed.file.startsWith('core/'))
    expect(core.length).toBeGreaterThan(5)
    const forbidden = core.flatMap((parsed) =>
      parsed.packages.filter((name) => /^(msw|express|node:|@faker-js|@msw\/data)/.test(name)).map((name) => `${parsed.file}: ${name}`),
    )
    expect(forbidden).toEqual([])
  })

  it('has one error base: no class extends Error but PetStoreMockError (each sets its name and a stable code)', () => {
    expect(files.flatMap((parsed) => parsed.errorClasses)).toEqual(['core/errors.ts: PetStoreMockError extends Error'])
  })

  it('keeps the layers below the hosts (core, store, journal, handlers, the world) from importing server/', () => {
    const lower = files.filter((parsed) => /^(core|store|journal|handlers|world)\//.test(parsed.file))
    const wrong = lower.flatMap((parsed) =>
      parsed.imports.filter(({ target }) => target.startsWith('server/')).map(({ target }) => `${parsed.file} -> ${target}`),
    )
    expect(wrong).toEqual([])
  })
})

describe('the control panel', () => {
  it('serves modules that need nothing but each other: no package, no file outside src/panel but the served admin ones', () => {
    const js = (file: string) => basename(file).replace(/\.ts$/, '.js')
    const isServed = (file: string) =>
      (file.startsWith('panel/') && !IN_PAGE_ONLY.has(js(file))) || (file.startsWith('admin/') && SERVED_ADMIN.has(js(file)))
    const served = files.filter((parsed) => isServed(parsed.file))
    expect(served.map((parsed) => parsed.file)).toEqual(expect.arrayContaining(['panel/ui-main.ts', 'admin/http-admin.ts']))
    const reaching = served.flatMap((parsed) => [
      ...parsed.packages.map((name) => `${parsed.file}: ${name}`),
      ...parsed.imports.filter(({ target, typeOnly }) => !typeOnly && !isServed(target)).map(({ target }) => `${parsed.file} -> ${target}`),
    ])
    expect(reaching).toEqual([])
  })

  it('keeps the modules that hold the world out of what the server serves', () => {
    const inPage = files.filter((parsed) => IN_PAGE_ONLY.has(basename(parsed.file).replace(/\.ts$/, '.js')))
    expect(inPage.map((parsed) => parsed.file).sort()).toEqual(['panel/in-page.ts', 'panel/world-source.ts'])
  })
})

describe('the shared world', () => {
  it('loads nothing of Redis without --redis: only src/server/redis imports the client, other modules at most its URL helper', () => {
    const outside = files.filter((parsed) => !parsed.file.startsWith('server/redis/'))
    const reaching = outside.flatMap((parsed) => [
      ...parsed.packages.filter((name) => name.startsWith('@redis/')).map((name) => `${parsed.file}: ${name}`),
      ...parsed.imports
        .filter(
          ({ target, typeOnly, dynamic }) =>
            !typeOnly && !dynamic && target.startsWith('server/redis/') && target !== 'server/redis/url.ts',
        )
        .map(({ target }) => `${parsed.file} -> ${target}`),
    ])
    expect(byFile.get('server/redis/link.ts')?.packages).toContain('@redis/client')
    expect(reaching).toEqual([])
  })
})

describe('the checker itself', () => {
  it('sees imports', () => {
    expect(byFile.get('core/api.ts')?.imports.map((i) => i.target)).toContain('core/errors.ts')
  })

  it('sees packages', () => {
    expect(byFile.get('server/node-host.ts')?.packages).toContain('node:buffer')
  })

  it('sees functions', () => {
    expect(byFile.get('core/api.ts')?.functions.map((fn) => fn.name)).toContain('createApi')
  })

  it('sees dynamic imports', () => {
    expect(byFile.get('server/http-server.ts')?.imports.map((i) => i.target)).toContain('server/redis/index.ts')
  })

  it('puts the hosts above the world', () => {
    expect(layerOf('server/admin/app.ts')).toBeGreaterThan(layerOf('world/create-world.ts'))
  })
})
