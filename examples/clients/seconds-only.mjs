// One defect: `secondsOnly`. Run it with: npx petstore-mock check-client -- node examples/clients/seconds-only.mjs
import { runTaskFromEnvironment } from './pet-client.mjs'

await runTaskFromEnvironment({ defects: { secondsOnly: true } })
