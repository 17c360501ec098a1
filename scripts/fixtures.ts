/** `npm run fixtures -- --seed 42 --pets 200 --out DIR`: a reproducible data set for scenarios and --fixtures. */
import { parseArgs } from 'node:util'
import { writeFixtures } from '../src/server/files.js'

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    pets: { type: 'string', default: '50' },
    categories: { type: 'string', default: '10' },
    out: { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
})
const usage = 'Usage: npm run fixtures -- --seed 42 --pets 200 [--categories 10] --out DIR'
if (values.help) {
  console.log(usage)
  process.exit(0)
}
const number = (name: string, text: string) => {
  if (!/^\d+$/.test(text)) {
    console.error(`fixtures: --${name} must be a whole number, got ${JSON.stringify(text)}.\n${usage}`)
    process.exit(2)
  }
  return Number(text)
}
if (!values.out) {
  console.error(`fixtures: --out DIR is required.\n${usage}`)
  process.exit(2)
}
const files = await writeFixtures({
  seed: number('seed', values.seed),
  pets: number('pets', values.pets),
  categories: number('categories', values.categories),
  out: values.out,
})
console.log(`Wrote ${files.join(' and ')}. Start a server on them: npx petstore-mock --fixtures ${values.out}`)
