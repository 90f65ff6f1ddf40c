/** What the service said in an error body. The spec shows no error shape, so the common ones are
 * read: `{error: {code|type, message, required_scope(s)|missing_scopes, param}}`,
 * `{error: "code", message}` and `{code, message}`. */
export interface ServiceError {
  code: string | null
  message: string | null
  /** Scopes the service named as required or missing. */
  scopes: string[]
  param: string | null
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null)

function scopesIn(o: Record<string, unknown>): string[] {
  const out: string[] = []
  for (const key of [
    'required_scope',
    'required_scopes',
    'missing_scope',
    'missing_scopes',
    'scope',
    'scopes',
  ]) {
    const v = o[key]
    if (typeof v === 'string') out.push(...v.split(/[\s,]+/).filter(Boolean))
    else if (Array.isArray(v)) out.push(...v.filter((x): x is string => typeof x === 'string'))
  }
  return [...new Set(out)]
}

export function serviceErrorOf(body: unknown): ServiceError | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null
  const top = body as Record<string, unknown>
  const inner =
    typeof top.error === 'object' && top.error !== null && !Array.isArray(top.error)
      ? (top.error as Record<string, unknown>)
      : null
  const code = str(inner?.code) ?? str(inner?.type) ?? str(top.error) ?? str(top.code) ?? str(top.type)
  const message = str(inner?.message) ?? str(top.message) ?? str(top.error_description) ?? str(top.detail)
  const scopes = [...new Set([...(inner ? scopesIn(inner) : []), ...scopesIn(top)])]
  const param = str(inner?.param) ?? str(top.param)
  if (!code && !message && scopes.length === 0) return null
  return { code, message, scopes, param }
}

/** The families of codes watchdesk knows how to explain. */
export type ServiceErrorKind = 'key' | 'business' | 'scope' | 'not_found' | 'rate' | 'invalid' | null

export function kindOfCode(code: string | null, scopes: string[]): ServiceErrorKind {
  if (!code) return scopes.length > 0 ? 'scope' : null
  const c = code.toLowerCase()
  if (/business/.test(c)) return 'business'
  if (/scope/.test(c) || (c === 'permission_error' && scopes.length > 0)) return 'scope'
  if (/api_key|authentication|unauthori[sz]ed|invalid_key|key_(revoked|expired)/.test(c)) return 'key'
  if (/not_found|no_such|unknown_resource/.test(c)) return 'not_found'
  if (/rate_limit|too_many/.test(c)) return 'rate'
  if (/invalid|validation|idempotency|bad_request/.test(c)) return 'invalid'
  return scopes.length > 0 ? 'scope' : null
}

/** The API's root: watchdesk adds /v1 to every path, so a base URL given with /v1 loses it. */
export function apiRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/i, '')
}
