import type { z } from 'zod'

/**
 * The words of a zod issue for a person: one home for every "what is wrong where" built from a schema's errors (a
 * scenario, a state file, a pet, a config the verifier wrote). The config file's own messages say more (what a key must
 * be, a likely meant key: src/server/config-problems.ts), and `POST /pets` answers its fields' messages alone
 * (src/core/validate.ts, the API's Error body).
 */

/** Where an issue is: `faults[0].chaos`; `root` when it is the whole value. */
export function issuePath(path: readonly PropertyKey[], root = '(root)'): string {
  const text = path
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
    .join('')
    .replace(/^\./, '')
  return text || root
}

/** One issue as `where: what`, e.g. `faults[0].chaos: must be true`. */
export const issueText = (issue: z.core.$ZodIssue, root?: string): string => `${issuePath(issue.path, root)}: ${issue.message}`

/** The first `limit` issues of an error, joined by "; ". */
export const issuesText = (error: z.ZodError, limit = 5): string =>
  error.issues
    .slice(0, limit)
    .map((issue) => issueText(issue))
    .join('; ')
