/**
 * A vitest reporter for scripts/msw3-lane.mjs: when the run ends, writes what each vitest project ran (files, and
 * tests passed, failed, skipped, and the milliseconds its files took, summed), and each failed test's name and first
 * error line, to the JSON file named by LANE_REPORT, so the lane can print a summary per project and fail on anything
 * vitest counts as a failure (a failed test, a file that did not load, an unhandled error).
 *
 *   LANE_REPORT=/tmp/report.json vitest run --reporter=dot --reporter=./scripts/lane-reporter.mjs
 */
import { writeFileSync } from 'node:fs'

/** The first line of an error's message, at most 300 characters: enough to tell one failure from another. */
const firstLine = (error) =>
  String(error?.message ?? '')
    .split('\n')[0]
    .slice(0, 300)

export default class LaneReporter {
  /** When each file started and ended, in s from the run's start: which files a run's last minutes wait on. */
  #began = Date.now()
  #spans = new Map()
  onTestModuleStart(testModule) {
    this.#spans.set(testModule.moduleId, { start: (Date.now() - this.#began) / 1000 })
  }
  onTestModuleEnd(testModule) {
    const span = this.#spans.get(testModule.moduleId)
    if (span) span.end = (Date.now() - this.#began) / 1000
  }
  onTestRunEnd(testModules, unhandledErrors, reason) {
    const projects = {}
    const files = []
    // Named at the end of the summary, so a CI log cut to its last lines still says what failed and why.
    const failures = []
    for (const testModule of testModules) {
      const name = testModule.project.name || '(root)'
      projects[name] ??= { files: 0, failedFiles: 0, passed: 0, failed: 0, skipped: 0, duration: 0 }
      const counts = projects[name]
      counts.files++
      const duration = Math.round(testModule.diagnostic().duration)
      counts.duration += duration
      files.push({ project: name, file: testModule.relativeModuleId, duration, ...this.#spans.get(testModule.moduleId) })
      if (testModule.state() === 'failed') {
        counts.failedFiles++
        // A file that failed outside its tests (it did not load, or a hook threw) has no failed test to name.
        const error = testModule.errors?.()[0]
        if (error) failures.push({ project: name, file: testModule.relativeModuleId, test: '(the file)', message: firstLine(error) })
      }
      for (const test of testModule.children.allTests()) {
        const { state } = test.result()
        if (state === 'passed') counts.passed++
        else if (state === 'failed') {
          counts.failed++
          failures.push({
            project: name,
            file: testModule.relativeModuleId,
            test: test.fullName,
            message: firstLine(test.result().errors?.[0]),
          })
        } else counts.skipped++
      }
    }
    const file = process.env['LANE_REPORT']
    if (file)
      writeFileSync(file, `${JSON.stringify({ reason, unhandledErrors: unhandledErrors.length, projects, files, failures }, null, 2)}\n`)
  }
}
