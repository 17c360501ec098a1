/**
 * The package's own errors share one base class: each is a `PetStoreMockError` with a stable lower_snake `code` and
 * its class's own `name`, so callers tell them apart by class and a minified bundle still names them.
 */
import { describe, expect, it } from 'vitest'
import { ReadError } from '../../src/cli/commands/snapshot-read.js'
import { UsageError } from '../../src/cli/parse.js'
import { PetStoreMockError, RedisStartError, StoreUnavailableError } from '../../src/core/errors.js'
import { PetStoreMockError as Exported } from '../../src/index.js'
import { ConfigError } from '../../src/server/config-file.js'
import { StateFileError } from '../../src/server/state/file.js'
import { StaleSnapshotError } from '../../src/snapshot.js'
import { BodyTooLargeError } from '../../src/verify/read-body.js'
import { Skip, VerifyError } from '../../src/verify/types.js'

const errors: readonly [string, PetStoreMockError][] = [
  ['StoreUnavailableError', new StoreUnavailableError('down')],
  ['RedisStartError', new RedisStartError('down')],
  ['ConfigError', new ConfigError('bad')],
  ['StateFileError', new StateFileError('bad')],
  ['StaleSnapshotError', new StaleSnapshotError('changed')],
  ['UsageError', new UsageError('bad')],
  ['ReadError', new ReadError('bad', 2)],
  ['BodyTooLargeError', new BodyTooLargeError('big')],
  ['Skip', new Skip('skipped')],
  ['VerifyError', new VerifyError('failed')],
]

describe('the package errors', () => {
  it.each(errors)('%s is a PetStoreMockError with its own name and a lower_snake code', (name, error) => {
    expect(error).toBeInstanceOf(PetStoreMockError)
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe(name)
    expect(error.code).toMatch(/^[a-z]+(_[a-z]+)*$/)
  })

  it('gives each class its own code', () => {
    const codes = errors.map(([, error]) => error.code)
    expect(new Set(codes).size).toBe(codes.length)
  })

  it('is exported from the package entry, the same class', () => {
    expect(Exported).toBe(PetStoreMockError)
  })
})
