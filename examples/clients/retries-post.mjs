// One defect: `retryPost`. Run it with: npx petstore-mock check-client -- node examples/clients/retries-post.mjs
import { runTaskFromEnvironment } from './pet-client.mjs'

await runTaskFromEnvironment({ defects: { retryPost: true } })
