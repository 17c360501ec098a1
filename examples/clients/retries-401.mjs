// One defect: `retry401`. Run it with: npx petstore-mock check-client -- node examples/clients/retries-401.mjs
import { runTaskFromEnvironment } from './pet-client.mjs'

await runTaskFromEnvironment({ defects: { retry401: true } })
