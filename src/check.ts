/**
 * `petstore-mock/check`: the client report card. Grades an SDK against the spec's failure rules
 * (`petstore-client-checks/2`): each check runs the SDK's calls against worlds of its own and judges what it sent.
 *
 * @example
 * import { checkClient } from 'petstore-mock/check'
 * const report = await checkClient({ listPets, getPet, createPet })
 * expect(report).toPassClientChecks() // petstore-mock/vitest or petstore-mock/jest
 */
export { CARD_KEY, CHECKS } from './check/catalogue.js'
export { commandRunner, taskEnvironment } from './check/command.js'
export { type ClientTasks, checkClient } from './check/in-process.js'
export { reportCtrf, reportJUnit, reportText } from './check/report.js'
export { type CardOptions, runCard } from './check/run.js'
export type {
  CardReport,
  CardVersion,
  CheckDefinition,
  CheckResult,
  CheckStatus,
  TaskInput,
  TaskName,
  TaskOutcome,
  TaskRunner,
} from './check/types.js'
export { CARD_VERSION } from './check/types.js'
