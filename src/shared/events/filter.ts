import type { EventFilter, EventSummary } from '../contract/events'

/** The Events view's filter, defined once. SQLite's and PostgreSQL's SQL and the renderer's test
 * for pushed events are each rendered from these terms, so the three cannot drift apart; a
 * property test (test/main/relay/store-conformance.test.ts) holds them to it. */
export type FilterTerm =
  | { kind: 'in'; field: 'group' | 'type'; values: readonly string[] }
  | { kind: 'atLeast' | 'atMost'; field: 'receivedAt'; value: number }
  /** Event id or data id starting with `value`: as an index range [value, upper), upper null when
   * nothing bounds it. */
  | { kind: 'prefix'; fields: readonly ['id', 'dataId']; value: string; upper: string | null }

export function filterTerms(filter: EventFilter): FilterTerm[] {
  const terms: FilterTerm[] = []
  if (filter.groups?.length) terms.push({ kind: 'in', field: 'group', values: filter.groups })
  if (filter.types?.length) terms.push({ kind: 'in', field: 'type', values: filter.types })
  if (filter.from !== undefined) terms.push({ kind: 'atLeast', field: 'receivedAt', value: filter.from })
  if (filter.to !== undefined) terms.push({ kind: 'atMost', field: 'receivedAt', value: filter.to })
  const search = filter.search?.trim()
  if (search)
    terms.push({ kind: 'prefix', fields: ['id', 'dataId'], value: search, upper: prefixUpperBound(search) })
  return terms
}

/** The smallest string above every string that starts with `prefix`, in code point order — the
 * order of UTF-8 bytes, which is SQLite's BINARY collation and PostgreSQL's "C". Appending
 * U+FFFF (the old bound) missed every id with a character above U+FFFF after the prefix. */
export function prefixUpperBound(prefix: string): string | null {
  const points = [...prefix]
  while (points.length > 0) {
    let next = points.pop()!.codePointAt(0)! + 1
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000
    if (next <= 0x10ffff) return points.join('') + String.fromCodePoint(next)
  }
  return null
}

type Filterable = Pick<EventSummary, 'id' | 'type' | 'group' | 'receivedAt' | 'dataId'>

export function matchesTerms(event: Filterable, terms: readonly FilterTerm[]): boolean {
  return terms.every((term) => {
    switch (term.kind) {
      case 'in':
        return term.values.includes(event[term.field])
      case 'atLeast':
        return event.receivedAt >= term.value
      case 'atMost':
        return event.receivedAt <= term.value
      case 'prefix':
        return event.id.startsWith(term.value) || (event.dataId ?? '').startsWith(term.value)
    }
  })
}

export const matchesFilter = (event: Filterable, filter: EventFilter): boolean =>
  matchesTerms(event, filterTerms(filter))

/** How one SQL dialect writes a parameter, a list membership and a text column compared in code
 * point order. */
export interface SqlDialect {
  param(value: unknown, params: unknown[]): string
  inList(column: string, values: readonly string[], params: unknown[]): string
  codePointOrder(column: string): string
  always: string
}

const columns = {
  group: 'grp',
  type: 'type',
  receivedAt: 'received_at',
  id: 'id',
  dataId: 'data_id',
} as const

/** `WHERE` clause of a filter in one dialect; every branch can use an index where the store has one. */
export function filterSql(filter: EventFilter, dialect: SqlDialect): { sql: string; params: unknown[] } {
  const params: unknown[] = []
  const p = (value: unknown) => dialect.param(value, params)
  const parts = filterTerms(filter).map((term) => {
    switch (term.kind) {
      case 'in':
        return dialect.inList(columns[term.field], term.values, params)
      case 'atLeast':
        return `${columns[term.field]} >= ${p(term.value)}`
      case 'atMost':
        return `${columns[term.field]} <= ${p(term.value)}`
      case 'prefix': {
        // Each side binds its own values: SQLite's `?` are positional.
        const range = (field: 'id' | 'dataId') => {
          const column = dialect.codePointOrder(columns[field])
          const from = `${column} >= ${p(term.value)}`
          return term.upper === null ? from : `(${from} AND ${column} < ${p(term.upper)})`
        }
        return `(${range('id')} OR ${range('dataId')})`
      }
    }
  })
  return { sql: parts.length ? parts.join(' AND ') : dialect.always, params }
}

export const sqliteDialect: SqlDialect = {
  param: (value, params) => (params.push(value), '?'),
  inList: (column, values, params) => (
    params.push(...values),
    `${column} IN (${values.map(() => '?').join(',')})`
  ),
  // BINARY collation compares UTF-8 bytes: code point order already.
  codePointOrder: (column) => column,
  always: '1',
}

export const postgresDialect: SqlDialect = {
  param: (value, params) => (params.push(value), `$${params.length}`),
  inList: (column, values, params) => (params.push(values), `${column} = ANY($${params.length}::text[])`),
  // The database's own collation may be a locale's (en_US orders "evt_1" and "evt1" as neighbours):
  // "C" is byte order, the order the prefix range is computed in.
  codePointOrder: (column) => `(${column} COLLATE "C")`,
  always: 'true',
}
