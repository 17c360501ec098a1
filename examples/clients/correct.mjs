// The correct client: honours Retry-After in both forms, backs off with jitter, retries only GET. Run it with: npx petstore-mock check-client -- node examples/clients/correct.mjs
import { runTaskFromEnvironment } from './pet-client.mjs'

await runTaskFromEnvironment({})
