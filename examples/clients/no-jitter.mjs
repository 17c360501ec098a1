// One defect: `noJitter`. Run it with: npx petstore-mock check-client -- node examples/clients/no-jitter.mjs
import { runTaskFromEnvironment } from './pet-client.mjs'

await runTaskFromEnvironment({ defects: { noJitter: true } })
