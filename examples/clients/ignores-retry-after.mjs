// One defect: `ignoreRetryAfter`. Run it with: npx petstore-mock check-client -- node examples/clients/ignores-retry-after.mjs
import { runTaskFromEnvironment } from './pet-client.mjs'

await runTaskFromEnvironment({ defects: { ignoreRetryAfter: true } })
