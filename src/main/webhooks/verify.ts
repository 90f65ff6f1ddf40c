import { createHmac, timingSafeEqual } from 'node:crypto'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

/** Lowercase hex HMAC-SHA256 of the raw body bytes, keyed with the secret exactly as issued. */
export function signBody(secret: string | Buffer, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

const hexDigest = /^[0-9a-fA-F]{64}$/

export type SignatureCheck =
  | { ok: true; endpoint: string }
  | {
      ok: false
      reason:
        'missing signature' | 'malformed signature' | 'signature does not match' | 'no secret configured'
    }

/** Tries each candidate secret in constant time per comparison; says which endpoint matched. */
export function verifySignature(
  body: Buffer,
  header: string | string[] | undefined,
  secrets: ReadonlyMap<string, Buffer>,
): SignatureCheck {
  if (header === undefined || header === '') return { ok: false, reason: 'missing signature' }
  const text = (Array.isArray(header) ? (header[0] ?? '') : header).trim()
  if (!hexDigest.test(text)) return { ok: false, reason: 'malformed signature' }
  if (secrets.size === 0) return { ok: false, reason: 'no secret configured' }
  const given = Buffer.from(text, 'hex')
  let matched: string | null = null
  for (const [endpoint, secret] of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest()
    // Compare against every secret, even after a match, so timing says nothing about which one.
    if (timingSafeEqual(expected, given) && matched === null) matched = endpoint
  }
  return matched === null
    ? { ok: false, reason: 'signature does not match' }
    : { ok: true, endpoint: matched }
}

export interface Envelope {
  id: string
  type: string
  created_at: string
  data: Record<string, unknown>
}

/** Deeper or larger than any real event: refused on parse, so nothing downstream (storing,
 * pushing, exporting) meets a value that overflows the stack or takes seconds to walk. */
export const envelopeLimits = { maxDepth: 64, maxKeys: 10_000 }

/** A UTF-16 surrogate without its pair (JSON allows `"\ud800"`): SQLite and PostgreSQL would
 * keep U+FFFD (or refuse it) instead, so the id read back would not be the id sent, and two such
 * ids could become one. Found by test/main/webhooks/envelope-properties.test.ts. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const envelopeFields = ['id', 'type', 'created_at'] as const
const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0

/** Spec 2.2: a JSON object with string id, type, created_at and an object data. */
export function parseEnvelope(body: Buffer, limits = envelopeLimits): Result<Envelope> {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    return err('bad_request', 'body is not JSON')
  }
  const bounded = checkBounds(value, limits)
  if (bounded !== null) return err('bad_request', bounded)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err('bad_request', 'not an envelope: the body is not a JSON object')
  }
  const v = value as Record<string, unknown>
  // The lists of what is wrong are made only for a body that is refused (issue 35: every
  // delivery made them, empty).
  if (!isText(v.id) || !isText(v.type) || !isText(v.created_at)) {
    const missing = envelopeFields.filter((k) => !isText(v[k]))
    return err('bad_request', `not an envelope: ${missing.join(', ')} missing or not a string`)
  }
  if (typeof v.data !== 'object' || v.data === null || Array.isArray(v.data)) {
    return err('bad_request', 'not an envelope: data missing or not an object')
  }
  if (v.id.length > 255 || v.type.length > 200) {
    return err('bad_request', 'not an envelope: id or type too long')
  }
  if (loneSurrogate.test(v.id) || loneSurrogate.test(v.type) || loneSurrogate.test(v.created_at)) {
    const malformed = envelopeFields.filter((k) => loneSurrogate.test(v[k] as string))
    return err(
      'bad_request',
      `not an envelope: ${malformed.join(', ')} ${malformed.length > 1 ? 'are' : 'is'} not valid Unicode (a lone \\u surrogate escape), which no store keeps as sent`,
    )
  }
  return ok({
    id: v.id,
    type: v.type,
    created_at: v.created_at,
    data: v.data as Record<string, unknown>,
  })
}

/** Walks the parsed value without recursion; says what exceeds the limits, or null. Runs on
 * every delivery: two flat stacks and a `for…in` walk, no array per object or pair per child. */
function checkBounds(root: unknown, limits: typeof envelopeLimits): string | null {
  const values: object[] = []
  const depths: number[] = []
  if (typeof root === 'object' && root !== null) {
    values.push(root)
    depths.push(1)
  }
  let keys = 0
  while (values.length > 0) {
    const value = values.pop()!
    const depth = depths.pop()!
    if (depth > limits.maxDepth) return `JSON nested deeper than ${limits.maxDepth} levels`
    if (Array.isArray(value)) {
      for (const child of value as unknown[]) {
        if (typeof child !== 'object' || child === null) continue
        values.push(child)
        depths.push(depth + 1)
      }
      continue
    }
    // JSON.parse makes plain objects: own enumerable keys only, so `for…in` sees exactly those.
    for (const key in value) {
      if (++keys > limits.maxKeys) return `JSON with more than ${limits.maxKeys} keys`
      const child = (value as Record<string, unknown>)[key]
      if (typeof child !== 'object' || child === null) continue
      values.push(child)
      depths.push(depth + 1)
    }
  }
  return null
}
