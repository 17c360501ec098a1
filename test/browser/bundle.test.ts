import { isBuiltin } from 'node:module'
import { beforeAll, expect, it } from 'vitest'
import { type BrowserBundle, bundleBrowserEntry } from '../../bench/browser-bundle.js'

/**
 * Measured with Vite 8.3.8 on Node 20 (2026-11-29): 783.6 KiB minified, 266.9 KiB gzip, about half of it msw. The seed
 * reads faker's generator only (`@faker-js/faker/locale/base`) and its own 42 pet names (src/store/pet-names.ts): the
 * whole `en` locale it loaded before, of which it read those names alone, was 267 KiB of 1,050.
 * Raise the budget only on purpose, and update docs/benchmarks.md (`npx tsx bench/browser-bundle.ts --write`).
 */
const BUDGET = { minifiedBytes: 800 * 1024, gzipBytes: 275 * 1024 }
const NODE_ONLY_PACKAGES = ['express', 'msw/node', '@mswjs/interceptors/ClientRequest']

let bundle: BrowserBundle

beforeAll(async () => {
  bundle = await bundleBrowserEntry()
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
  console.log(
    `petstore-mock/browser bundle: ${kib(bundle.minifiedBytes)} minified, ${kib(bundle.gzipBytes)} gzip, ${kib(bundle.brotliBytes)} brotli`,
  )
})

it('bundles every dependency, msw/browser included, into one self-contained entry', () => {
  expect(bundle.imports).toEqual([])
  expect(bundle.specifiers).toContain('msw/browser')
})

it('keeps the control panel out of the entry: one chunk of its own, loaded only with panel: true', () => {
  expect(bundle.dynamicImports).toEqual(bundle.lazy.map((chunk) => chunk.fileName))
  expect(bundle.lazy).toHaveLength(1)
  const [panel] = bundle.lazy
  expect(panel?.moduleIds.some((id) => id.endsWith('src/panel/in-page.ts'))).toBe(true)
  expect(bundle.moduleIds.filter((id) => id.includes('/src/panel/'))).toEqual([])
  console.log(`the panel's own chunk: ${((panel?.minifiedBytes ?? 0) / 1024).toFixed(1)} KiB minified`)
})

it('imports no Node built-in from any bundled module', () => {
  expect(bundle.specifiers.filter((specifier) => specifier.startsWith('node:') || isBuiltin(specifier))).toEqual([])
})

it('has no built-in stubbed out by the bundler', () => {
  // Vite swaps a Node built-in imported by browser code for an empty `__vite-browser-external` module.
  // The bundler's own helpers for the lazy panel chunk (`\0rolldown/runtime.js`, `\0vite/preload-helper.js`) are no built-in.
  const helpers = new Set(['\0rolldown/runtime.js', '\0vite/preload-helper.js'])
  expect(bundle.moduleIds.filter((id) => id.includes('__vite-browser-external') || (id.startsWith('\0') && !helpers.has(id)))).toEqual([])
})

it('imports none of express, fs, path or http, nor a Node-only msw entry', () => {
  const forbidden = (specifier: string) =>
    ['fs', 'path', 'http'].some((name) => specifier === name || specifier.startsWith(`${name}/`)) ||
    NODE_ONLY_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`))
  expect(bundle.specifiers.filter(forbidden)).toEqual([])
})

it('leaves no node: specifier in the output', () => {
  expect(bundle.code).not.toMatch(/["'`]node:[a-z_/]+["'`]/)
})

it('leaves no require() in the output', () => {
  expect(bundle.code).not.toMatch(/\brequire\(\s*["'`]/)
})

it(`stays within the size budget (${BUDGET.minifiedBytes / 1024} KiB minified, ${BUDGET.gzipBytes / 1024} KiB gzip)`, () => {
  expect(bundle.minifiedBytes).toBeLessThanOrEqual(BUDGET.minifiedBytes)
  expect(bundle.gzipBytes).toBeLessThanOrEqual(BUDGET.gzipBytes)
})
