/**
 * `petstore-mock/http`: the standalone server as a library, and the express middleware.
 *
 * @example
 * import { createPetStoreServer } from 'petstore-mock/http'
 * const server = createPetStoreServer({ port: 0, seed: 7 })
 * const url = await server.listen()
 */
export { type ConfigFile, loadConfig } from './server/config-file.js'
export { type MiddlewareRequest, type PetStoreMiddleware, type PetStoreMiddlewareOptions, petStoreMiddleware } from './server/express.js'
export { createPetStoreServer, type LogFormat, type PetStoreServer, type PetStoreServerOptions } from './server/http-server.js'
export { type CheckResult, VerifyError, type VerifyOptions, type VerifyReport, verify } from './verify/index.js'
