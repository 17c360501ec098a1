/** `npm run config-schema`: writes config.schema.json from the zod schema (a test checks it is current). */
import { writeFileSync } from 'node:fs'
import { configJsonSchema } from '../src/server/config-file.js'

writeFileSync(new URL('../config.schema.json', import.meta.url), configJsonSchema())
console.log('Wrote config.schema.json')
