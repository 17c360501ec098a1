/**
 * The README's table of the server's options is the one scripts/option-table.ts makes from the parser's table
 * (src/cli/options.ts), so the two cannot drift: after changing an option, run `npx tsx scripts/option-table.ts --write`.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { SERVE } from '../../src/cli/options.js'
import { envName, optionTable, TABLE_MARKERS } from '../../src/cli/parse.js'
import { ROOT } from '../http/support.js'

it("holds the generated table between the README's markers", async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf(TABLE_MARKERS.start)
  const end = readme.indexOf(TABLE_MARKERS.end)
  expect(start, TABLE_MARKERS.start).toBeGreaterThan(-1)
  expect(end, TABLE_MARKERS.end).toBeGreaterThan(start)
  const inReadme = readme.slice(start + TABLE_MARKERS.start.length, end).trim()
  expect(inReadme, 'README.md is stale: run npx tsx scripts/option-table.ts --write').toBe(optionTable(SERVE))
})

it('has a row for every option of the table, with its variable, --redis too', () => {
  const rows = optionTable(SERVE).split('\n').slice(2)
  expect(rows.map((row) => /^\| `--([a-z-]+)/.exec(row)?.[1])).toEqual(Object.keys(SERVE.options))
  for (const [name] of Object.entries(SERVE.options))
    expect(rows.find((row) => row.startsWith(`| \`--${name}`))).toContain(`| \`${envName(SERVE, name)}\` |`)
  expect(rows.some((row) => row.startsWith('| `--redis URL` | `PETSTORE_REDIS` | none |'))).toBe(true)
  // A | in a cell, even in code, is escaped, or it would end the cell.
  expect(rows.find((row) => row.startsWith('| `--media-type-status'))).toContain('`--media-type-status 400\\|415`')
})
