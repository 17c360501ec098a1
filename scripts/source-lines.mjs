#!/usr/bin/env node
/**
 * Prints the non-test lines of src/ (every `.ts` file but `*.test.ts`, blank and comment lines included, as `wc -l`
 * counts them) folder by folder: first the mock itself (the spec's facts, the core, the store, the journal, the
 * scenarios, the handlers, the world, the node hosts and the package's entries), then the tools shipped beside it (the
 * command line, verify, the report card, MCP, the control panel). docs/architecture.md lists what each folder holds.
 *
 *   node scripts/source-lines.mjs           # the table
 *   node scripts/source-lines.mjs --json    # { folders: { name: lines }, mock, tools, total }
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const SRC = resolve(fileURLToPath(import.meta.url), '../../src')
/** The folders of the tools beside the mock; every other folder, and the files at the top of src/, are the mock. */
const TOOLS = new Set(['cli', 'verify', 'check', 'mcp', 'panel'])

/** Every non-test `.ts` file below `dir`. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** Lines as `wc -l` counts them: newline characters. */
const linesOf = (file) => readFileSync(file, 'utf8').split('\n').length - 1

const folders = new Map()
for (const file of sources(SRC)) {
  const [top, ...rest] = relative(SRC, file).split('/')
  const folder = rest.length === 0 ? '(top level)' : top
  folders.set(folder, (folders.get(folder) ?? 0) + linesOf(file))
}
const sum = (names) => names.reduce((total, name) => total + (folders.get(name) ?? 0), 0)
const names = [...folders.keys()].sort()
const mock = names.filter((name) => !TOOLS.has(name))
const tools = names.filter((name) => TOOLS.has(name))
const result = { folders: Object.fromEntries(names.map((name) => [name, folders.get(name)])), mock: sum(mock), tools: sum(tools) }
result.total = result.mock + result.tools

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(result, null, 2))
} else {
  const row = (name, lines) => `| ${name} | ${lines.toLocaleString('en-US')} |`
  console.log('| src/ folder | non-test lines |')
  console.log('|---|---:|')
  for (const name of mock) console.log(row(name, folders.get(name)))
  console.log(row('**the mock**', result.mock))
  for (const name of tools) console.log(row(name, folders.get(name)))
  console.log(row('**the tools beside it**', result.tools))
  console.log(row('**all of src/**', result.total))
}
