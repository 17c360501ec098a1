/**
 * A config file's problems as people read them (test/cli/config.test.ts): zod's issues, each one line
 * `FILE: key: message` naming the key (`keys[0].plan`), what the value must be and what it is, never a value that
 * may be a secret. `petstore-mock config validate` and the server's `--config` print the same lines.
 */
import { z } from 'zod'
import { likelyMeant } from '../core/spelling.js'

/** One problem of a config file: the key it is about (`rateLimit.retryAfterFormat`; none for the whole file), and what is wrong. */
export interface ConfigProblem {
  readonly key?: string
  readonly message: string
}

/** A problem as one line, `FILE: key: message`, as the server and `petstore-mock config validate` print it. */
export function problemLine(file: string, { key, message }: ConfigProblem): string {
  return `${file}${key === undefined ? '' : `: ${key}`}: ${message}`
}

type Issue = z.core.$ZodIssue

/** Values that may hold a secret (a token, a password in a URL, an API key): a problem never shows them. */
const isSecret = (path: readonly PropertyKey[]) =>
  ['adminToken', 'redis', 'proxy'].includes(String(path[0])) || (path[0] === 'keys' && path.at(-1) === 'key')

/** `keys[0].plan` for the path `['keys', 0, 'plan']`; undefined for the file as a whole. */
function keyOf(path: readonly PropertyKey[]): string | undefined {
  let key = ''
  for (const part of path) key += typeof part === 'number' ? `[${part}]` : `${key === '' ? '' : '.'}${String(part)}`
  return key === '' ? undefined : key
}

/** A value as "got …" shows it: a short one as its JSON, a list or an object by its kind. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'a list'
  if (value !== null && typeof value === 'object') return 'an object'
  const text = typeof value === 'bigint' ? String(value) : JSON.stringify(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** "a, b or c". */
const listed = (words: readonly string[], last = 'or') =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`

const KINDS: Readonly<Record<string, string>> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
}

/** What a bound allows: "at least 1", "more than 0". */
function bound(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>): string {
  const limit = 'minimum' in issue ? issue.minimum : issue.maximum
  const [inclusive, exclusive] = issue.code === 'too_small' ? ['at least', 'more than'] : ['at most', 'less than']
  const words = `${issue.inclusive === false ? exclusive : inclusive} ${String(limit)}`
  if (issue.origin === 'string')
    return Number(limit) === 1 && issue.code === 'too_small' ? 'text, not empty' : `text of ${words} characters`
  return issue.origin === 'array' ? `a list of ${words} items` : `a number ${words}`
}

/** What the value must be, after "must be"; undefined when the issue says something else. */
function expected(issue: Issue): string | undefined {
  // The schema's own messages (whole, moment, the patterns) already say it.
  if (issue.message.startsWith('must be ')) return issue.message.slice('must be '.length)
  switch (issue.code) {
    case 'invalid_type':
      return KINDS[issue.expected] ?? issue.expected
    case 'invalid_value':
      return listed(issue.values.map((value) => shown(value)))
    case 'too_small':
    case 'too_big':
      return bound(issue)
    case 'invalid_format':
      return issue.format === 'url' ? 'an http or https URL such as https://staging.example/v1' : `a ${issue.format}`
    case 'invalid_union': {
      const each = issue.errors.map((branch) => (branch.length === 1 && branch[0]?.path.length === 0 ? expected(branch[0]) : undefined))
      return each.every((words) => words !== undefined) ? listed([...new Set(each)]) : undefined
    }
    default:
      return undefined
  }
}

/** The keys the schema allows at `path`, where it is an object: for the suggestion of an unknown key. */
function keysAt(root: z.ZodType, path: readonly PropertyKey[]): string[] {
  let schema: unknown = root
  for (const part of path) {
    while (schema instanceof z.ZodOptional) schema = schema.unwrap()
    if (schema instanceof z.ZodArray) schema = schema.element
    else if (schema instanceof z.ZodObject && typeof part === 'string') schema = schema.shape[part]
    else return []
  }
  while (schema instanceof z.ZodOptional) schema = schema.unwrap()
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : []
}

/**
 * One zod issue as the problems a person reads: the key, what it must be and what it is (never a value that may be a
 * secret). A union whose value fits one of its kinds (a list of pets) gives that kind's problems.
 */
export function problemsOf(issue: Issue, root: z.ZodType, at: readonly PropertyKey[] = []): ConfigProblem[] {
  const path = [...at, ...issue.path]
  if (issue.code === 'unrecognized_keys') {
    const known = keysAt(root, path)
    return issue.keys.map((name) => {
      const meant = likelyMeant(name, known)
      const where = path.length === 0 ? 'the config file' : keyOf(path)
      return { key: keyOf([...path, name]) ?? name, message: `is not a key of ${where}.${meant ? ` Did you mean ${meant}?` : ''}` }
    })
  }
  if (issue.code === 'invalid_union') {
    // The kinds the value is not (a number where a list was given) say nothing about it: the one it is says what is wrong.
    const fitting = issue.errors.filter((branch) => !branch.every((one) => one.path.length === 0 && one.code === 'invalid_type'))
    if (fitting.length === 1) return (fitting[0] ?? []).flatMap((one) => problemsOf(one, root, path))
  }
  const must = expected(issue)
  const key = keyOf(path)
  const secret = isSecret(path)
  const input = (issue as { input?: unknown }).input
  let message: string
  if (must === undefined) message = `${issue.message}.`
  else if (input === undefined) message = `is missing: it must be ${must}.`
  else message = `must be ${must}${secret ? '' : `, got ${shown(input)}`}.`
  return [key === undefined ? { message } : { key, message }]
}
