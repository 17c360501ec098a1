/**
 * The config file and the options cannot drift apart: type-checked by `npm run typecheck`. An option added
 * to the server or to `createPetStore` without its key in the config schema, or a key added to the schema that no
 * option takes, is a type error here naming it. (`loadConfig` checks the values' types where it builds the options.)
 */
import type { ConfigFile } from '../../src/server/config-file.js'
import type { PetStoreServerOptions } from '../../src/server/http-server.js'

/** Options only code can give: functions, objects, and the in-process storage switch. */
type CodeOnly = 'userHandlers' | 'write' | 'collection' | 'proxyFetch'
/** Keys of the file that name files, which become options when read (`handlers` -> `userHandlers`, `fixtures` -> `keys`, `pets`). */
type FileOnly = '$schema' | 'handlers' | 'fixtures'

type MissingInFile = Exclude<keyof PetStoreServerOptions, keyof ConfigFile | CodeOnly>
type MissingInOptions = Exclude<keyof ConfigFile, keyof PetStoreServerOptions | FileOnly>

export const everyOptionHasItsKeyInTheFile: [MissingInFile] extends [never] ? true : MissingInFile = true
export const everyKeyOfTheFileIsAnOption: [MissingInOptions] extends [never] ? true : MissingInOptions = true
