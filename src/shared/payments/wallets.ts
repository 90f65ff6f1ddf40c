import { err, ok } from '../result'
import type { Result } from '../result'

/** The spec does not show the shape of GET /v1/wallets. Accept a bare array or an object that
 * wraps one, show the fields that are present, and format only what is recognisable. */

export type CellKind = 'id' | 'amount' | 'currency' | 'status' | 'time' | 'text' | 'json'
export interface WalletCell {
  text: string
  kind: CellKind
}
export interface WalletTable {
  /** Where the list was found: `(array)` or the wrapping property, e.g. `data`. */
  source: string
  columns: { key: string; kind: CellKind }[]
  rows: WalletCell[][]
}

const preferredWrappers = ['data', 'wallets', 'items', 'results', 'records']

/** A bare array, or the first array-valued property of an object (preferring common wrapper names). */
export function findList(
  body: unknown,
  what = 'GET /v1/wallets',
): Result<{ source: string; items: unknown[] }> {
  if (Array.isArray(body)) return ok({ source: '(array)', items: body })
  if (typeof body !== 'object' || body === null) {
    return err('upstream', `${what} answered ${JSON.stringify(body)}, not a list or an object holding one.`)
  }
  const record = body as Record<string, unknown>
  const key =
    preferredWrappers.find((k) => Array.isArray(record[k])) ??
    Object.keys(record).find((k) => Array.isArray(record[k]))
  if (key === undefined) {
    const keys = Object.keys(record)
    return err(
      'upstream',
      `${what} answered an object without a list in it (keys: ${keys.length ? keys.join(', ') : 'none'}). The raw answer is shown as it came.`,
    )
  }
  return ok({ source: key, items: record[key] as unknown[] })
}

// Made on first use: a process's first Intl.NumberFormat loads ICU's number data (about 25 ms of
// CPU), which every start that loads the payments capability paid for a wallets table it may never show.
let amountFormat: Intl.NumberFormat | undefined
const intlAmount = (n: number): string =>
  (amountFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 18 })).format(n)

function kindOfKey(key: string): CellKind {
  const k = key.toLowerCase()
  if (k === 'id' || k.endsWith('_id') || (k.endsWith('id') && k.length <= 4)) return 'id'
  if (k === 'currency' || k.endsWith('_currency') || k === 'asset' || k === 'token') return 'currency'
  if (/(^|_)(amount|balance|available|pending|total|reserved|held)($|_)/.test(k)) return 'amount'
  if (k === 'status' || k === 'state') return 'status'
  if (k.endsWith('_at') || k === 'created' || k === 'updated') return 'time'
  return 'text'
}

function formatAmount(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return intlAmount(value)
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) {
    const [whole, fraction] = value.split('.')
    const grouped = BigInt(whole!).toLocaleString('en-US')
    const sign = whole!.startsWith('-') && !grouped.startsWith('-') ? '-' : ''
    return fraction ? `${sign}${grouped}.${fraction}` : `${sign}${grouped}`
  }
  return null
}

/** `[{currency, amount}]` → "1,000 USD · 5.5 USDC"; other nested values stay JSON. */
function formatNested(value: unknown): WalletCell {
  if (Array.isArray(value) && value.every(isBalanceLike)) {
    return {
      text: value.map((b) => `${formatAmount(amountOf(b)) ?? String(amountOf(b))} ${b.currency}`).join(' · '),
      kind: 'amount',
    }
  }
  if (isBalanceLike(value))
    return {
      text: `${formatAmount(amountOf(value)) ?? String(amountOf(value))} ${value.currency}`,
      kind: 'amount',
    }
  return { text: JSON.stringify(value), kind: 'json' }
}

function isBalanceLike(v: unknown): v is Record<string, unknown> & { currency: string } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const r = v as Record<string, unknown>
  return typeof r.currency === 'string' && formatAmount(amountOf(r)) !== null
}
const amountOf = (r: Record<string, unknown>): unknown => r.amount ?? r.balance ?? r.available

export function formatCell(key: string, value: unknown): WalletCell {
  if (value === null || value === undefined) return { text: '—', kind: 'text' }
  if (typeof value === 'object') return formatNested(value)
  const kind = kindOfKey(key)
  if (kind === 'amount') {
    const formatted = formatAmount(value)
    return formatted === null ? { text: String(value), kind: 'text' } : { text: formatted, kind: 'amount' }
  }
  if (kind === 'currency' && typeof value === 'string') return { text: value.toUpperCase(), kind }
  if (typeof value === 'number') return { text: intlAmount(value), kind: 'amount' }
  return { text: String(value), kind }
}

/** The columns are the keys present, in first-seen order; non-object items get one `value` column. */
export function walletTable(body: unknown): Result<WalletTable> {
  const found = findList(body)
  if (!found.ok) return found
  const keys: string[] = []
  for (const item of found.value.items) {
    const fields = isRecord(item) ? Object.keys(item) : ['value']
    for (const k of fields) if (!keys.includes(k)) keys.push(k)
  }
  const rows = found.value.items.map((item) =>
    keys.map((k) => formatCell(k, isRecord(item) ? item[k] : k === 'value' ? item : undefined)),
  )
  const columns = keys.map((key, i) => {
    const kinds = rows.map((r) => r[i]!.kind).filter((_, j) => rows[j]![i]!.text !== '—')
    return { key, kind: kinds.length > 0 && kinds.every((k) => k === kinds[0]) ? kinds[0]! : 'text' }
  })
  return ok({ source: found.value.source, columns, rows })
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
