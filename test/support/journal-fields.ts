/**
 * The fields of a journal entry that every host records alike for the same seed, clock and traffic: what a host adds
 * of its own (the time it took, `durationMs`, and the headers only it sends) left out. The timeline tests compare
 * hosts on these (test/scenarios/timeline.test.ts over HTTP, test/browser/conformance.test.ts in Chromium).
 */
export const comparableEntry = ({
  seq,
  time,
  method,
  path,
  status,
  code,
  stage,
  fault,
  delayMs,
  scenario,
  responseBody,
}: Record<string, unknown>) => ({ seq, time, method, path, status, code, stage, fault, delayMs, scenario, responseBody })
