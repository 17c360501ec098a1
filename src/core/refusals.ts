/**
 * Rules every admin surface refuses by (the HTTP routes, the request router, the MCP tools), with the words they use:
 * written once here, so a fix reaches each surface.
 */

/** A session's name (`X-Mock-Session`, `?session=`, an MCP tool's `session`). */
export const SESSION_NAME = /^[A-Za-z0-9._:-]{1,64}$/
/** `SESSION_NAME` in words, for the refusal of a name that breaks it. */
export const SESSION_NAME_RULE = '1-64 characters of letters, digits, ".", "_", ":" or "-"'

/**
 * The refusal of a change the state file could not keep (docs/spec-decisions.md row 65): an admin change, or a create
 * answered 503 `state_file_unavailable`.
 */
export const notKeptMessage = (what: 'change' | 'create'): string =>
  `The state file could not be written, so this ${what} would not survive a restart; GET /__mock/health says why.${what === 'create' ? ' Retry once it is writable.' : ''}`
