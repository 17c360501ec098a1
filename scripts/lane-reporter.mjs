/**
 * A vitest reporter for scripts/msw3-lane.mjs: when the run ends, writes what each vitest project ran (files, and
 * tests passed, failed, skipped, and the milliseconds its files took, summed) to the JSON file named by LANE_REPORT, so the lane can print a summary per project
 * and fail on anything vitest counts as a failure (a failed test, a file that did not load, an unhandled error).
 *
 *   LANE_REPORT=/tmp/report.json vitest run --reporter=dot --reporter=./scripts/lane-reporter.mjs
 */
import { writeFileSync } from 'node:fs'

export default class LaneReporter {
  onTestRunEnd(testModules, unhandledErrors, reason) {
    const projects = {}
    const files = []
    for (const testModule of testModules) {
      const name = testModule.project.name || '(root)'
      projects[name] ??= { files: 0, failedFiles: 0, passed: 0, failed: 0, skipped: 0, duration: 0 }
      const counts = projects[name]
      counts.files++
      const duration = Math.round(testModule.diagnostic().duration)
      counts.duration += duration
      files.push({ project: name, file: testModule.relativeModuleId, duration })
      if (testModule.state() === 'failed') counts.failedFiles++
      for (const test of testModule.children.allTests()) {
        const { state } = test.result()
        if (state === 'passed') counts.passed++
        else if (state === 'failed') counts.failed++
        else counts.skipped++
      }
    }
    const file = process.env['LANE_REPORT']
    if (file) writeFileSync(file, `${JSON.stringify({ reason, unhandledErrors: unhandledErrors.length, projects, files }, null, 2)}\n`)
  }
}
