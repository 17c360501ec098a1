/**
 * The options a run found, as a config file (`--write-config`): the verified config's own keys, with the changes
 * that make the mock answer like the target on top. The file is checked by the same schema `--config` reads it with.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import { issueText } from '../core/issues.js'
import { parseJsonReadable, stringifyJson } from '../core/json.js'
import { ConfigSchema } from '../server/config-file.js'
import type { OptionPatch } from './types.js'

type Config = Record<string, unknown>

const isPlainObject = (value: unknown): value is Config => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The config keys that name files, relative to the config file's folder. */
const PATH_KEYS = ['scenarios', 'fixtures', 'handlers', 'stateFile'] as const

/**
 * `base` with `change` on top, one level deep (`rateLimit` merges key by key); `undefined` removes a key, or with
 * `removals: 'keep'` stays as `undefined`.
 *
 * @example
 * applyPatch({ rateLimit: { banAfterEarlyRetries: 3 } }, { rateLimit: { retryAfterFormat: 'http-date' } })
 * // { rateLimit: { banAfterEarlyRetries: 3, retryAfterFormat: 'http-date' } }
 */
export function applyPatch<T extends object>(base: T, change: Readonly<Config>, removals: 'delete' | 'keep' = 'delete'): T {
  const next: Config = { ...(base as Config) }
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined && removals === 'delete') delete next[key]
    else if (isPlainObject(value) && isPlainObject(next[key])) next[key] = applyPatch(next[key] as Config, value, removals)
    else next[key] = value
  }
  return next as T
}

/** Every leaf of a patch as a dotted path and its value. */
function leaves(config: Readonly<Config>, prefix = ''): [string, unknown][] {
  return Object.entries(config).flatMap(([key, value]): [string, unknown][] =>
    isPlainObject(value) ? leaves(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value]],
  )
}

/**
 * A change of the mock's options with its label as the report shows it: each key and its JSON value (`none` for a
 * key it removes), then `note`.
 *
 * @example
 * optionPatch({ rateLimit: { retryAfterFormat: 'http-date' } }).label // 'rateLimit.retryAfterFormat: "http-date"'
 */
export function optionPatch(config: Readonly<Config>, note = ''): OptionPatch {
  const label = leaves(config).map(([path, value]) => `${path}: ${value === undefined ? 'none' : JSON.stringify(value)}`)
  return { label: `${label.join(', ')}${note}`, config }
}

/** The patches of the differing checks in one config; a second, different value for the same key is a conflict. */
export function mergePatches(found: readonly { check: string; patch: OptionPatch }[]): { config: Config; conflicts: string[] } {
  let config: Config = {}
  const setBy = new Map<string, { check: string; value: unknown }>()
  const conflicts: string[] = []
  for (const { check, patch } of found) {
    let clash = false
    for (const [path, value] of leaves(patch.config)) {
      const earlier = setBy.get(path)
      if (earlier && stringifyJson(earlier.value) !== stringifyJson(value)) {
        conflicts.push(
          `${path}: ${check} needs ${stringifyJson(value) ?? 'none'}, ${earlier.check} needs ${stringifyJson(earlier.value) ?? 'none'} (kept)`,
        )
        clash = true
      }
    }
    if (clash) continue
    for (const [path, value] of leaves(patch.config)) setBy.set(path, { check, value })
    // A removal stays as `undefined`, so that writing the file removes the key from the verified config too.
    config = applyPatch(config, patch.config, 'keep')
  }
  return { config, conflicts }
}

/** The verified config file's own keys, its file paths rewritten relative to the new file's folder. */
async function baseConfig(from: string | undefined, to: string): Promise<Config> {
  if (from === undefined) return { $schema: './node_modules/petstore-mock/config.schema.json' }
  const parsed = parseJsonReadable(await readFile(from, 'utf8'))
  if (!parsed.ok || !isPlainObject(parsed.value)) throw new Error(`${from} is not a JSON object.`)
  const config = { ...parsed.value }
  for (const key of PATH_KEYS) {
    const value = config[key]
    if (typeof value !== 'string' || isAbsolute(value)) continue
    config[key] = relative(dirname(resolve(to)), resolve(dirname(resolve(from)), value)) || '.'
  }
  return config
}

/**
 * Writes `config` over the verified config file's keys (`from`, when verify read one) to `to`, checked by the config
 * file's schema first.
 *
 * @example
 * await writeConfigFile('./petstore-mock.json', report.config, './base.json')
 */
export async function writeConfigFile(to: string, config: Readonly<Config>, from?: string): Promise<void> {
  const merged = applyPatch(await baseConfig(from, to), config)
  const checked = ConfigSchema.safeParse(merged)
  if (!checked.success) {
    const issue = checked.error.issues[0]
    throw new Error(`the options found do not make a valid config file (${issue ? issueText(issue) : 'no issue given'}).`)
  }
  await writeFile(to, `${stringifyJson(merged, 2)}\n`)
}
