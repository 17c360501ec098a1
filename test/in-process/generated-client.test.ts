/**
 * A client generated from the OpenAPI document, made the way a user makes one (docs/spec-decisions.md row 52):
 * openapi-typescript turns `openApiDocument()` into types, a small openapi-fetch client over
 * `petStore.fetch` uses them, the TypeScript compiler checks it under a strict tsconfig (and refuses
 * wrong variants of it), and then the same file runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from '../../src/openapi.js'

const ROOT = resolve(import.meta.dirname, '../..')

/** The client, with `extra` placed in the branch of the 401 where `error` is the typed Error body. */
const clientSource = (extra = '') => `import createClient from 'openapi-fetch'
import { createPetStore } from '../../src/index.js'
import type { components, paths } from './schema.js'

type ErrorBody = components['schemas']['Error']
/** listPets lists its 400 (docs/spec-decisions.md row 52): this names a type only if the document has it. */
export type InvalidQuery = paths['/pets']['get']['responses'][400]['content']['application/json']

export interface Observed {
  step: string
  status: number
  body: unknown
}

/** The typed fields of an Error body. */
function fields(error: ErrorBody): ErrorBody {
  const status: number = error.status
  const code: string = error.code
  const message: string = error.message
  return { code, message, status }
}

export async function run(): Promise<Observed[]> {
  const petStore = createPetStore({ clock: '2026-06-01T12:00:30Z' })
  await petStore.ready()
  const client = createClient<paths>({
    baseUrl: 'https://api.petstore.test/v1',
    fetch: petStore.fetch,
    headers: { Authorization: 'Bearer test-free' },
  })
  const observed: Observed[] = []

  const list = await client.GET('/pets', { params: { query: { limit: 2, status: 'available' } } })
  if (list.error) throw new Error(\`listPets failed: \${list.error.code}\`)
  const names: string[] = list.data.map((pet) => pet.name)
  observed.push({ step: 'list', status: list.response.status, body: names })

  const created = await client.POST('/pets', { body: { name: 'Rex', categoryId: 2, status: 'pending' } })
  if (created.error) throw new Error(\`createPet failed: \${created.error.code}\`)
  const id: number = created.data.id
  observed.push({ step: 'create', status: created.response.status, body: created.data })

  const fetched = await client.GET('/pets/{petId}', { params: { path: { petId: id } } })
  if (fetched.error) throw new Error(\`getPet failed: \${fetched.error.code}\`)
  observed.push({ step: 'get', status: fetched.response.status, body: fetched.data })

  const unauthorized = await client.GET('/pets', { headers: { Authorization: 'Bearer not-a-key' } })
  if (unauthorized.error) {
    const status: number = unauthorized.error.status
    const code: string = unauthorized.error.code
    ${extra}
    observed.push({ step: 'unauthorized', status: unauthorized.response.status, body: { ...fields(unauthorized.error), status, code } })
  }

  const missing = await client.GET('/pets/{petId}', { params: { path: { petId: 999_999 } } })
  if (missing.error) observed.push({ step: 'missing', status: missing.response.status, body: fields(missing.error) })

  // The Free plan allows 60 requests a minute and the clock is frozen: the 61st is refused.
  for (let i = 0; i < 60; i++) {
    const page = await client.GET('/pets', { params: { query: { limit: 1 } } })
    if (page.error) {
      observed.push({ step: 'limited', status: page.response.status, body: fields(page.error) })
      break
    }
  }
  return observed
}
`

/** Variants that must not compile, each with the error the compiler gives. */
const WRONG = {
  'wrong-code.ts': { source: clientSource("const bad: 'x' = unauthorized.error.code"), code: 2322 },
  'wrong-status.ts': {
    // listPets never answers 404: the generated type must not have it.
    source: `${clientSource()}\nexport type NotAnswered = paths['/pets']['get']['responses'][404]\n`,
    code: 2339,
  },
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    types: [],
    noEmit: true,
  },
  files: ['client.ts', ...Object.keys(WRONG)],
}

let dir = ''
let diagnostics = new Map<string, readonly ts.Diagnostic[]>()

const describeDiagnostics = (list: readonly ts.Diagnostic[]) =>
  list.map((d) => `TS${d.code} ${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`).join('\n')

beforeAll(async () => {
  // Under the repository (in the git-ignored .tmp/), so openapi-fetch resolves from its node_modules.
  mkdirSync(join(ROOT, '.tmp'), { recursive: true })
  dir = mkdtempSync(join(ROOT, '.tmp', 'generated-client-'))
  const documentFile = join(dir, 'openapi.json')
  writeFileSync(documentFile, JSON.stringify(openApiDocument(), null, 2))
  writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(pathToFileURL(documentFile))))
  writeFileSync(join(dir, 'client.ts'), clientSource())
  for (const [file, { source }] of Object.entries(WRONG)) writeFileSync(join(dir, file), source)
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2))

  const config = ts.parseJsonConfigFileContent(TSCONFIG, ts.sys, dir)
  expect(config.errors).toEqual([])
  const program = ts.createProgram(config.fileNames, config.options)
  diagnostics = new Map(config.fileNames.map((file) => [file, ts.getPreEmitDiagnostics(program, program.getSourceFile(file))]))
})

afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true })
})

describe('a client generated from the OpenAPI document', () => {
  it('type-checks under a strict tsconfig with no errors', () => {
    const errors = diagnostics.get(join(dir, 'client.ts'))
    expect(errors, describeDiagnostics(errors ?? [])).toEqual([])
  })

  it.each(Object.entries(WRONG))('refuses to compile %s', (file, { code }) => {
    const errors = diagnostics.get(join(dir, file)) ?? []
    expect(errors.map((d) => d.code)).toEqual([code])
  })

  it('answers each step of the client (list, create, get, 401, 404, 429) with the body its types promise', async () => {
    const { run } = (await import(/* @vite-ignore */ pathToFileURL(join(dir, 'client.ts')).href)) as {
      run: () => Promise<{ step: string; status: number; body: unknown }[]>
    }
    const observed = await run()
    expect(observed.map(({ step, status }) => [step, status])).toEqual([
      ['list', 200],
      ['create', 201],
      ['get', 200],
      ['unauthorized', 401],
      ['missing', 404],
      ['limited', 429],
    ])
    const [list, created, fetched, unauthorized, missing, limited] = observed.map(({ body }) => body)
    expect(list).toEqual([expect.any(String), expect.any(String)])
    expect(created).toEqual({ id: 51, name: 'Rex', categoryId: 2, status: 'pending' })
    expect(fetched).toEqual(created)
    expect(unauthorized).toEqual({ code: 'unauthorized', message: expect.any(String), status: 401 })
    expect(missing).toEqual({ code: 'pet_not_found', message: 'No pet with id "999999".', status: 404 })
    expect(limited).toEqual({ code: 'rate_limited', message: expect.stringContaining('60 requests per minute'), status: 429 })
  })
})

describe('the OpenAPI document', () => {
  it('lists every status each operation answers, with default standing only for answers of no operation', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { operationId: string; responses: object }>>
    const statuses = Object.fromEntries(
      Object.values(paths).flatMap((item) => Object.values(item).map((op) => [op.operationId, Object.keys(op.responses)])),
    )
    const shared = ['401', '408', '413', '429', '500', '502', '503', '504', 'default']
    const sorted = (list: string[]) => [...list].sort((a, b) => a.localeCompare(b))
    expect(statuses).toEqual({
      listPets: sorted(['200', '400', ...shared]),
      createPet: sorted(['201', '400', '415', '507', ...shared]),
      getPet: sorted(['200', '404', '410', ...shared]),
      listOrders: sorted(['501', ...shared]),
    })
  })
})
