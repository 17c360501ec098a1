/**
 * The package project's global setup: one install of the packed tarball into a fresh project for the whole vitest run
 * (a lane of `npm test`), shared by the test files that need one through copies (./consumer.ts `copyConsumer`),
 * removed when the run ends. Before, each of three files made its own install: three minutes of a run's time.
 * The install runs beside the other projects' files rather than before them: vitest starts no file until every global
 * setup has returned, and the install takes half a minute that the rest of the run would otherwise wait.
 */
import { mkdtempSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { installConsumer, markInstalled } from './consumer.js'

export default function setup(project: TestProject): () => Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'petstore-mock-consumer-'))
  // Its outcome is written into workDir, where `copyConsumer` waits for it.
  const installing = installConsumer(workDir).then(
    (consumer) => markInstalled(workDir, consumer),
    (error: unknown) => markInstalled(workDir, error instanceof Error ? error : new Error(String(error))),
  )
  project.provide('consumerDir', workDir)
  return async () => {
    await installing
    await rm(workDir, { recursive: true, force: true })
  }
}
