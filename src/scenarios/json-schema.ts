/** The JSON Schema of scenario files, generated from the zod schema the mock checks them with. */
import { z } from 'zod'
import { ScenarioSchema } from './schema.js'

/** The JSON Schema text of `scenarios/scenario.schema.json`. */
export function scenarioJsonSchema(): string {
  const schema = z.toJSONSchema(ScenarioSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' })
  return `${JSON.stringify({ ...schema, $id: 'https://petstore-mock.dev/scenario.schema.json' }, null, 2)}\n`
}
