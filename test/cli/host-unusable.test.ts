/**
 * A `--host` the server cannot listen on is a usage error like every other bad option: exit 2 and one line
 * naming the option, the address and the fix, not exit 1 and a stack. 8.8.8.8 is no address of this machine
 * (EADDRNOTAVAIL); a name under `.invalid` never resolves (RFC 6761 section 6.4).
 */
import { beforeAll, expect, it } from 'vitest'
import { ensureBuilt, runCli } from '../http/support.js'

beforeAll(ensureBuilt)

it('exits 2 for a --host that is no address of this machine', async () => {
  const { code } = await runCli(['--host', '8.8.8.8', '--port', '0'])
  expect(code).toBe(2)
})

it('says in one line that the --host is no address of this machine, and what to give instead', async () => {
  const { stderr } = await runCli(['--host', '8.8.8.8', '--port', '0'])
  expect(stderr).toBe(
    'petstore-mock: --host "8.8.8.8" is not an address of this machine (EADDRNOTAVAIL): give an address of this machine, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).\n',
  )
})

it('exits 2 for a --host name that does not resolve', async () => {
  const { code } = await runCli(['--host', 'no-such-host.invalid', '--port', '0'])
  expect(code).toBe(2)
})

it('says in one line that the --host name does not resolve, naming it', async () => {
  const { stderr } = await runCli(['--host', 'no-such-host.invalid', '--port', '0'])
  expect(stderr).toMatch(
    /^petstore-mock: --host "no-such-host\.invalid" does not resolve to an address \(E[A-Z_]+\): give an address of this machine[^\n]*\n$/,
  )
})

it('names PETSTORE_HOST when the address came from the environment', async () => {
  const { code, stderr } = await runCli(['--port', '0'], { PETSTORE_HOST: '8.8.8.8' })
  expect(code).toBe(2)
  expect(stderr).toMatch(/^petstore-mock: PETSTORE_HOST "8\.8\.8\.8" is not an address of this machine/)
})
