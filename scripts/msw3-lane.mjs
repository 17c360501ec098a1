#!/usr/bin/env node
/**
 * The msw 3 lane (#9, decisions/008-msw-3-readiness.md). msw 3 needs Node 22+, the project runs on Node 20, so
 * this script fetches a Node 22 runtime from the npm registry (the `node` package: its install step pulls
 * `node-<platform>-<arch>`, whose bin/node is the real binary), copies the repository with its node_modules into a
 * temporary folder, installs msw 3 there, and with that Node:
 *   1. type-checks src/ against msw 3 (tsc -p tsconfig.build.json --noEmit);
 *   2. runs the shared conformance suite in-process (test/in-process/conformance.test.ts);
 *   3. with --all, also runs every other vitest project but `package` (unit, in-process, http, browser, examples).
 * The repository itself is never changed. Linux and macOS (the npm `node` package ships no Windows path here).
 *
 *   npm run test:msw3                    # node@22, msw@3: about a minute after the first download
 *   npm run test:msw3 -- --all           # every suite (Chromium needed: npm run browser:install)
 *   npm run test:msw3 -- --node 24 --msw 3.0.5 --keep
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, delimiter, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    node: { type: 'string', default: '22' },
    msw: { type: 'string', default: '3' },
    all: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
})

const work = mkdtempSync(join(tmpdir(), 'petstore-msw3-'))
const runtime = join(work, 'runtime')
const copy = join(work, 'repo')
const log = (line) => process.stdout.write(`[msw3-lane] ${line}\n`)

// npm run exports the calling project's settings (npm_package_*, npm_config_local_prefix): the copies get none of
// them, only the machine's npm configuration, as a fresh shell would.
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_(package|lifecycle|config_local_prefix|config_prefix)/i.test(name)),
)

function npm(args, cwd, env = baseEnv) {
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] })
}

/** Runs vitest with Node 22 in the copy; returns the counts from its JSON report. */
function vitest(label, args, node, env) {
  const report = join(work, `${label}.json`)
  const result = spawnSync(
    node,
    [
      join(copy, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      ...args,
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ],
    { cwd: copy, env, stdio: 'inherit' },
  )
  if (!existsSync(report)) return { label, passed: 0, failed: 0, skipped: 0, files: 0, ok: false }
  const json = JSON.parse(readFileSync(report, 'utf8'))
  return {
    label,
    passed: json.numPassedTests,
    failed: json.numFailedTests,
    skipped: json.numPendingTests + json.numTodoTests,
    files: json.testResults.length,
    ok: result.status === 0 && json.success,
  }
}

try {
  log(`Node ${values.node} from the npm registry into ${runtime}`)
  mkdirSync(runtime)
  writeFileSync(join(runtime, 'package.json'), '{ "name": "petstore-msw3-runtime", "private": true }\n')
  npm(['install', `node@${values.node}`], runtime)
  const node = join(runtime, 'node_modules', 'node', 'bin', 'node')
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  if (Number(/^v(\d+)/.exec(nodeVersion)?.[1]) < 22) throw new Error(`Expected Node 22 or later, got ${nodeVersion}.`)
  // npm and every script of the copy run on that Node: its directory first on PATH.
  const env = { ...baseEnv, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` }

  log(`copying the repository into ${copy}`)
  const skip = new Set(['.git', 'dist', 'test-results', 'coverage', '.tmp'])
  cpSync(ROOT, copy, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => {
      const path = relative(ROOT, source)
      const name = basename(source)
      if (path.startsWith(`node_modules`)) return true
      return !(skip.has(name) || name.endsWith('.tgz'))
    },
  })
  log(`msw@${values.msw} into the copy (its package.json and lock file are left as they are)`)
  npm(['install', `msw@${values.msw}`, '--no-save'], copy, env)
  const mswVersion = JSON.parse(readFileSync(join(copy, 'node_modules', 'msw', 'package.json'), 'utf8')).version
  log(`Node ${nodeVersion}, msw ${mswVersion}`)

  log('type-checking src/ against msw 3')
  const tsc = spawnSync(node, [join(copy, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--noEmit'], {
    cwd: copy,
    env,
    stdio: 'inherit',
  })
  const results = [{ label: 'tsc -p tsconfig.build.json (src/)', passed: '', failed: '', skipped: '', files: '', ok: tsc.status === 0 }]

  log('shared conformance suite, in-process (msw setupServer and petStore.fetch)')
  results.push(vitest('conformance', ['--project', 'in-process', 'test/in-process/conformance.test.ts'], node, env))
  if (values.all) {
    log('every other suite')
    const projects = ['unit', 'in-process', 'http', 'browser', 'examples'].flatMap((name) => ['--project', name])
    results.push(vitest('all', projects, node, env))
  }

  process.stdout.write(`\nmsw 3 lane: Node ${nodeVersion}, msw ${mswVersion}, ${new Date().toISOString().slice(0, 10)}\n`)
  process.stdout.write('| Step | Files | Passed | Failed | Skipped | Result |\n|---|---|---|---|---|---|\n')
  for (const r of results) {
    process.stdout.write(`| ${r.label} | ${r.files} | ${r.passed} | ${r.failed} | ${r.skipped} | ${r.ok ? 'pass' : 'FAIL'} |\n`)
  }
  process.exitCode = results.every((r) => r.ok) ? 0 : 1
} finally {
  if (values.keep) log(`kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}
