/**
 * The package project's global setup: one install of the packed tarball into a fresh project for the whole vitest run
 * (a lane of `npm test`), shared by the test files that need one through copies (./consumer.ts `copyConsumer`),
 * removed when the run ends. Before, each of three files made its own install: three minutes of a run's time.
 */
import { rm } from 'node:fs/promises'
import type { TestProject } from 'vitest/node'
import { installConsumer } from './consumer.js'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const consumer = await installConsumer('petstore-mock-consumer-')
  project.provide('consumer', consumer)
  return () => rm(consumer.workDir, { recursive: true, force: true })
}
