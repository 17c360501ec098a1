// One defect: `noJitter` (exponential waits without jitter): it fails retry.jitter, a recommended check, so the card
// still exits 0. Run it with: npx petstore-mock check-client -- node examples/clients/no-jitter.mjs
import { runTaskFromEnvironment } from './pet-client.mjs'

await runTaskFromEnvironment({ defects: { noJitter: true } })
