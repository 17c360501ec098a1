/**
 * The path `--proxy` builds the upstream URL from (docs/spec-decisions.md row 53a): normalised as the upstream reads
 * it, so a path that leaves the base is seen to leave it (test/http/proxy-path-escape.test.ts sends them over
 * loopback).
 */
import { describe, expect, it } from 'vitest'
import { normalisePath } from './proxy.js'

describe('normalisePath', () => {
  it("removes dot segments as RFC 3986 section 5.2.4's example does", () => {
    expect(normalisePath('/a/b/c/./../../g')).toBe('/a/g')
  })

  it('keeps the trailing slash a final dot segment leaves', () => {
    expect(normalisePath('/v1/pets/..')).toBe('/v1/')
  })

  it('stops at the root when more segments are removed than there are', () => {
    expect(normalisePath('/v1/../../../x')).toBe('/x')
  })

  it('reads percent-encoded dots as dots', () => {
    expect(normalisePath('/v1/%2E%2e/.%2e/x')).toBe('/x')
  })

  it('decodes unreserved characters and upper-cases other escapes', () => {
    expect(normalisePath('/v1/%7euser/a%2fb')).toBe('/v1/~user/a%2Fb')
  })

  it('reads a backslash as a slash, as the URL parser of the upstream fetch does', () => {
    expect(normalisePath('/v1\\..\\x')).toBe('/x')
  })

  it('refuses a dot segment behind an encoded slash', () => {
    expect(normalisePath('/v1/..%2f..%2Fx')).toBeUndefined()
  })
})
