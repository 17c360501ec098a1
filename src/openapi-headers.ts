/**
 * The response headers of the OpenAPI document (src/openapi.ts), as `components.headers`: the spec's rate-limit
 * headers, Retry-After, WWW-Authenticate, Location and the deprecation headers of `GET /pets/{petId}`.
 */
import { SUNSET } from './spec.js'

export function headerComponents(): Record<string, unknown> {
  const integer = { schema: { type: 'integer' } }
  return {
    'X-RateLimit-Limit': { description: 'The limit currently applying (integer)', ...integer },
    'X-RateLimit-Remaining': { description: 'Requests remaining in the current window (integer)', ...integer },
    'X-RateLimit-Reset': { description: 'Unix timestamp at which the limit resets', ...integer },
    'Retry-After': {
      description: 'Seconds to wait before retrying (an HTTP-date with the option rateLimit.retryAfterFormat: http-date)',
      required: true,
      schema: {
        anyOf: [
          { type: 'integer', minimum: 1 },
          { type: 'string', description: 'An HTTP-date (RFC 9110)' },
        ],
      },
    },
    'WWW-Authenticate': { description: 'Always "Bearer"', required: true, schema: { type: 'string', const: 'Bearer' } },
    Location: { description: 'Path of the new animal', required: true, schema: { type: 'string' } },
    Deprecation: { description: 'RFC 9745: when the operation was deprecated', required: true, schema: { type: 'string' } },
    Sunset: {
      description: 'RFC 8594: when the operation is removed',
      required: true,
      schema: { type: 'string', const: new Date(SUNSET).toUTCString() },
    },
    Link: { description: 'The replacement operation (rel="successor-version")', required: true, schema: { type: 'string' } },
  }
}
