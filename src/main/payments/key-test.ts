import type { KeyTest } from '../../shared/contract/payments'
import { apiRoot, serviceErrorOf } from '../../shared/payments'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Connection } from './connect'

/** One GET /v1/wallets with a key: whether it works, the scopes the service says are missing, and
 * the businesses it reached. Used when a key is stored and by Settings' "Test" of apiBaseUrl. */
export async function testKey(
  connect: (override: { keyName?: string; baseUrl?: string }) => Promise<Result<Connection>>,
  override: { keyName?: string; baseUrl?: string },
  configuredBase: string | undefined,
): Promise<Result<KeyTest>> {
  const given = override.baseUrl ?? configuredBase ?? null
  const baseUrl = given ? apiRoot(given) : null
  const baseUrlNote =
    given && baseUrl !== given.replace(/\/+$/, '')
      ? `${given} ends in /v1; watchdesk adds /v1 to every path, so it calls ${baseUrl}/v1/… (save it without /v1).`
      : null
  const empty = { baseUrl, baseUrlNote, status: null, code: null, missingScopes: [], businesses: [] }
  const c = await connect({ ...override, ...(baseUrl ? { baseUrl } : {}) })
  if (!c.ok)
    return ok({ ...empty, keyName: override.keyName ?? null, works: false, message: c.error.message })
  const { key, businessId } = c.value
  const answer = await c.value.client.request({
    operation: 'wallets.list',
    method: 'GET',
    path: '/v1/wallets',
  })
  if (!answer.ok) {
    const detail = (answer.error.detail ?? {}) as { status?: number; body?: unknown }
    const said = serviceErrorOf(detail.body)
    return ok({
      ...empty,
      keyName: key.name,
      works: false,
      status: typeof detail.status === 'number' ? detail.status : null,
      code: said?.code ?? null,
      missingScopes: said?.scopes ?? [],
      message: answer.error.message,
    })
  }
  const businesses = [...new Set([...(businessId ? [businessId] : []), ...businessesIn(answer.value.body)])]
  return ok({
    ...empty,
    keyName: key.name,
    works: true,
    status: answer.value.status,
    businesses,
    message: `The key "${key.name}" works: GET ${baseUrl}/v1/wallets answered ${answer.value.status}${
      businesses.length > 0
        ? ` for ${businesses.join(', ')}`
        : ' without X-Business-Id (a single-business account, or name your businesses under Businesses)'
    }.`,
  })
}

/** Business ids named in a wallets answer (`business_id`, `business`, `businessId` of its items). */
function businessesIn(body: unknown): string[] {
  const list = Array.isArray(body)
    ? body
    : typeof body === 'object' && body !== null
      ? (Object.values(body).find(Array.isArray) ?? [])
      : []
  const out: string[] = []
  for (const item of list as unknown[]) {
    if (typeof item !== 'object' || item === null) continue
    const o = item as Record<string, unknown>
    for (const v of [o.business_id, o.businessId, o.business])
      if (typeof v === 'string' && /^biz_/.test(v)) out.push(v)
  }
  return out
}
