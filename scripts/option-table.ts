/**
 * `npx tsx scripts/option-table.ts [--write]`: prints the README's table of the server's options, made from the
 * table the parser reads (src/cli/options.ts); with --write, puts it between the README's markers
 * (test/cli/option-table.test.ts checks the README holds it).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { SERVE } from '../src/cli/options.js'
import { optionTable, TABLE_MARKERS } from '../src/cli/parse.js'

const README = new URL('../README.md', import.meta.url)
const table = optionTable(SERVE)
if (process.argv.includes('--write')) {
  const text = readFileSync(README, 'utf8')
  const start = text.indexOf(TABLE_MARKERS.start)
  const end = text.indexOf(TABLE_MARKERS.end)
  if (start < 0 || end < start) {
    console.error(`README.md has no ${TABLE_MARKERS.start} ... ${TABLE_MARKERS.end} to write the table between.`)
    process.exitCode = 1
  } else {
    writeFileSync(README, `${text.slice(0, start + TABLE_MARKERS.start.length)}\n${table}\n${text.slice(end)}`)
    console.log('Wrote the option table of README.md')
  }
} else console.log(table)
