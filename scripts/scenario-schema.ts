/** `npm run scenario-schema`: writes scenarios/scenario.schema.json from the zod schema (a test checks it is current). */
import { writeFileSync } from 'node:fs'
import { scenarioJsonSchema } from '../src/scenarios/json-schema.js'

writeFileSync(new URL('../scenarios/scenario.schema.json', import.meta.url), scenarioJsonSchema())
console.log('Wrote scenarios/scenario.schema.json')
