import type { WalletsResult } from '../../shared/contract/payments'
import { walletTable } from '../../shared/payments'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Connection } from './connect'

/** GET /v1/wallets for the selected business, as a table when the answer holds a list. */
export async function listWallets(
  connect: () => Promise<Result<Connection>>,
  now: () => number = Date.now,
): Promise<Result<WalletsResult>> {
  const c = await connect()
  if (!c.ok) return c
  const response = await c.value.client.request({
    operation: 'wallets.list',
    method: 'GET',
    path: '/v1/wallets',
  })
  if (!response.ok) return response
  const table = walletTable(response.value.body)
  return ok({
    businessId: c.value.businessId,
    fetchedAt: now(),
    source: table.ok ? table.value.source : null,
    columns: table.ok ? table.value.columns : [],
    rows: table.ok ? table.value.rows : [],
    shapeProblem: table.ok ? null : table.error.message,
    raw: response.value.body,
  })
}
