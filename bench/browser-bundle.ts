/**
 * Size of the `petstore-mock/browser` entry as a front-end app ships it: `src/browser.ts` bundled for
 * the browser by Vite (production, minified, msw/browser and every dependency included), then gzipped
 * and brotli-compressed. The rows with a dependency left out show what each one costs.
 *
 *   npx tsx bench/browser-bundle.ts           # prints the table
 *   npx tsx bench/browser-bundle.ts --write   # and writes it into docs/benchmarks.md ("Browser bundle")
 *
 * test/browser/bundle.test.ts checks the same bundle for Node built-ins and against a size budget.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build, type Plugin, version as viteVersion } from 'vite'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ENTRY = 'src/browser.ts'
const BENCHMARKS = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))

export interface BrowserBundle {
  /**
   * The minified JavaScript of the entry chunk: everything an app loads. The control panel (`panel: true`, issue
   * #16) is a chunk of its own, loaded only when asked for: see `lazy`.
   */
  readonly code: string
  /** The chunks loaded on demand (the panel), with their modules and sizes. */
  readonly lazy: readonly { fileName: string; moduleIds: readonly string[]; minifiedBytes: number }[]
  /** What the entry loads on demand (the panel's chunk). */
  readonly dynamicImports: readonly string[]
  /** Every specifier any bundled module imports, as written (`./clock.js`, `msw/browser`, ...). */
  readonly specifiers: readonly string[]
  /** The modules in the bundle: absolute paths, or ids such as `__vite-browser-external:fs` for a stubbed built-in. */
  readonly moduleIds: readonly string[]
  /** Static imports left in the entry (only the `external` ones). */
  readonly imports: readonly string[]
  readonly minifiedBytes: number
  readonly gzipBytes: number
  readonly brotliBytes: number
}

/**
 * Bundles `src/browser.ts` for the browser the way an app build does (Vite's client resolve
 * conditions, `process.env.NODE_ENV` = production, minified), with the given packages left out.
 *
 * @example
 * const { gzipBytes } = await bundleBrowserEntry()
 */
export async function bundleBrowserEntry(options: { external?: readonly string[] } = {}): Promise<BrowserBundle> {
  const specifiers = new Set<string>()
  const recordImports: Plugin = {
    name: 'petstore-mock:record-imports',
    enforce: 'pre',
    resolveId(source) {
      specifiers.add(source)
      return null
    },
  }
  const result = await build({
    root: ROOT,
    configFile: false,
    logLevel: 'silent',
    mode: 'production',
    plugins: [recordImports],
    build: {
      write: false,
      minify: true,
      sourcemap: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: ENTRY,
        external: [...(options.external ?? [])],
        preserveEntrySignatures: 'strict',
        output: { format: 'es' },
      },
    },
  })
  const outputs = Array.isArray(result) ? result : [result]
  const chunks = outputs.flatMap((output) => ('output' in output ? output.output : [])).filter((item) => item.type === 'chunk')
  const entry = chunks.find((item) => item.isEntry)
  if (!entry) throw new Error(`No entry chunk from ${ENTRY}: got ${chunks.map((item) => item.fileName).join(', ')}.`)
  // What loads with the entry: it and the chunks it imports statically (shared with the panel's chunk).
  const byName = new Map(chunks.map((item) => [item.fileName, item]))
  const loaded = [entry]
  for (let i = 0; i < loaded.length; i++)
    for (const name of (loaded[i] as typeof entry).imports) {
      const next = byName.get(name)
      if (next && !loaded.includes(next)) loaded.push(next)
    }
  const lazy = chunks
    .filter((item) => !loaded.includes(item))
    .map((item) => ({ fileName: item.fileName, moduleIds: [...item.moduleIds], minifiedBytes: Buffer.byteLength(item.code) }))
  const code = loaded.map((item) => item.code).join('\n')
  return {
    code,
    lazy,
    dynamicImports: [...new Set(loaded.flatMap((item) => item.dynamicImports))],
    specifiers: [...specifiers].sort(),
    moduleIds: loaded.flatMap((item) => [...item.moduleIds]),
    imports: loaded.flatMap((item) => item.imports).filter((name) => !byName.has(name)),
    minifiedBytes: Buffer.byteLength(code),
    gzipBytes: gzipSync(code, { level: 9 }).length,
    brotliBytes: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  }
}

const VARIANTS: ReadonlyArray<{ label: string; external: readonly string[] }> = [
  { label: 'everything bundled (what an app ships)', external: [] },
  { label: 'without msw (the app has it already)', external: ['msw', 'msw/browser'] },
  { label: 'without @faker-js/faker', external: ['@faker-js/faker', '@faker-js/faker/locale/base'] },
  { label: 'without zod', external: ['zod'] },
]

const kib = (bytes: number): string =>
  `${(bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 })} KiB`

/** The Markdown table of every variant. */
export async function browserBundleTable(): Promise<string> {
  const rows = ['| `petstore-mock/browser` | Minified | Gzip (level 9) | Brotli (quality 11) |', '|---|---:|---:|---:|']
  for (const { label, external } of VARIANTS) {
    const bundle = await bundleBrowserEntry({ external })
    rows.push(`| ${label} | ${kib(bundle.minifiedBytes)} | ${kib(bundle.gzipBytes)} | ${kib(bundle.brotliBytes)} |`)
  }
  return rows.join('\n')
}

/** Replaces (or appends) the "## Browser bundle" section of docs/benchmarks.md, keeping the other sections. */
async function writeSection(table: string): Promise<void> {
  const section = [
    '## Browser bundle',
    `What \`petstore-mock/browser\` adds to a front-end app: \`src/browser.ts\` bundled by Vite ${viteVersion} for the browser`,
    `(production, minified, one chunk, msw/browser and every dependency included), measured by`,
    `\`npx tsx bench/browser-bundle.ts --write\` on Node ${process.version}. A row without a dependency shows that dependency's share.`,
    '',
    table,
    '',
    "- @faker-js/faker is bundled without any locale (`@faker-js/faker/locale/base`): the seed's 42 pet names are",
    "  `src/store/pet-names.ts`, the pinned faker's `en` list (its whole `en` locale was 284 KB of the bundle).",
    '- `test/browser/bundle.test.ts` fails above its budget (in that file) and if any bundled module imports a Node built-in.',
    '',
  ].join('\n')
  const current = await readFile(BENCHMARKS, 'utf8').catch(() => '# Benchmarks\n')
  const start = current.search(/^## Browser bundle$/m)
  let next: string
  if (start === -1) next = `${current.trimEnd()}\n\n${section}`
  else {
    const after = current.slice(start + 1).search(/^## /m)
    next = current.slice(0, start) + section + (after === -1 ? '' : `\n${current.slice(start + 1 + after)}`)
  }
  await writeFile(BENCHMARKS, next)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const table = await browserBundleTable()
  console.log(table)
  if (process.argv.includes('--write')) {
    await writeSection(table)
    console.log(`\nWritten to ${BENCHMARKS}`)
  }
}
