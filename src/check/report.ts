/**
 * The card's report in the forms CI reads: text for a terminal, JUnit XML (one test case per check; a check that
 * does not apply is skipped) and CTRF JSON (the Common Test Report Format, https://ctrf.io). JSON is the report itself.
 */
import type { CardReport, CheckResult } from './types.js'

const MARK = { passed: 'PASS', failed: 'FAIL', 'not-applicable': 'N/A ' } as const

/** One check as the terminal shows it: its mark, id and reason, then (unless passed) the evidence and the fix. */
export function resultText(result: CheckResult): string {
  const level = result.level === 'recommended' ? ' (recommended)' : ''
  const head = `${MARK[result.status]} ${result.id}${level}: ${result.reason}`
  if (result.status === 'passed') return head
  const evidence = result.evidence.map((line) => `       ${line}`)
  const fix = result.status === 'failed' ? [`       rule: ${result.rule} (${result.source})`, `       fix: ${result.fix}`] : []
  return [head, ...evidence, ...fix].join('\n')
}

/** The last line of the text report: the counts and the verdict. */
export function summaryText(report: CardReport): string {
  const count = (status: CheckResult['status']) => report.checks.filter((result) => result.status === status).length
  const summary = `${report.card}: ${count('passed')} passed, ${count('failed')} failed, ${count('not-applicable')} not applicable in ${(report.durationMs / 1000).toFixed(1)} s`
  const advice = report.checks.filter((result) => result.status === 'failed' && result.level === 'recommended').map((result) => result.id)
  const verdict = !report.ok
    ? report.checks.some((result) => result.status === 'failed' && result.level === 'required')
      ? 'a required check failed'
      : 'no check passed: the task met none of their conditions (does the command run? try it by hand)'
    : advice.length === 0
      ? 'every required check passed'
      : `no required check failed; the recommended ${advice.join(', ')} failed (advice: the exit status stays 0)`
  return `${summary}: ${verdict}.\n`
}

/** The whole report as text: each check, then the summary. */
export function reportText(report: CardReport): string {
  return `${report.checks.map(resultText).join('\n')}\n${summaryText(report)}`
}

const xml = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string)

/**
 * JUnit XML, in the shape Jenkins, GitLab and GitHub's test reporters read: valid against the Jenkins JUnit schema
 * (junit-4.xsd; test/cli/check-client.test.ts validates with xmllint), so `<skipped>` holds its reason as text.
 */
export function reportJUnit(report: CardReport): string {
  const failures = report.checks.filter((result) => result.status === 'failed').length
  const skipped = report.checks.filter((result) => result.status === 'not-applicable').length
  const seconds = (ms: number) => (ms / 1000).toFixed(3)
  const cases = report.checks.map((result) => {
    const open = `    <testcase classname="${report.card}" name="${xml(result.id)}" time="${seconds(result.durationMs)}"`
    const details = xml([result.rule, ...result.evidence, `fix: ${result.fix}`].join('\n'))
    if (result.status === 'passed') return `${open}/>`
    if (result.status === 'not-applicable') return `${open}>\n      <skipped>${xml(result.reason)}</skipped>\n    </testcase>`
    return `${open}>\n      <failure message="${xml(result.reason)}" type="${result.level}">${details}</failure>\n    </testcase>`
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="petstore-mock check-client" tests="${report.checks.length}" failures="${failures}" errors="0" time="${seconds(report.durationMs)}">`,
    `  <testsuite name="${report.card}" tests="${report.checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(report.durationMs)}" timestamp="${report.startedAt.slice(0, 19)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

/** CTRF JSON (https://ctrf.io): `results.tool`, `results.summary` and one test per check. */
export function reportCtrf(report: CardReport): string {
  const start = Date.parse(report.startedAt)
  const status = { passed: 'passed', failed: 'failed', 'not-applicable': 'skipped' } as const
  const count = (wanted: CheckResult['status']) => report.checks.filter((result) => result.status === wanted).length
  const tests = report.checks.map((result) => ({
    name: result.id,
    status: status[result.status],
    duration: result.durationMs,
    suite: [report.card],
    ...(result.status === 'passed' ? {} : { message: result.reason, trace: result.evidence.join('\n') }),
    extra: { level: result.level, rule: result.rule, source: result.source, fix: result.fix },
  }))
  const summary = {
    tests: tests.length,
    passed: count('passed'),
    failed: count('failed'),
    pending: 0,
    skipped: count('not-applicable'),
    other: 0,
    start,
    stop: start + report.durationMs,
  }
  return `${JSON.stringify({ reportFormat: 'CTRF', specVersion: '0.0.0', results: { tool: { name: 'petstore-mock' }, summary, tests } }, null, 2)}\n`
}
