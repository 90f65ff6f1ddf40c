import { describe, expect, it } from 'vitest'
import { filterSql, postgresDialect, prefixUpperBound, sqliteDialect } from '../../src/shared/events/filter'

describe('the event filter definition', () => {
  it('bounds a prefix by its successor in code point order', () => {
    expect(prefixUpperBound('evt_')).toBe('evt`')
    expect(prefixUpperBound('a\uffff')).toBe('a\u{10000}')
    expect(prefixUpperBound('a\u{10ffff}')).toBe('b')
    expect(prefixUpperBound('\u{10ffff}')).toBeNull()
    // Never a lone surrogate: U+D7FF is followed by U+E000.
    expect(prefixUpperBound('x\ud7ff')).toBe('x\ue000')
  })

  it('renders one filter in both dialects with the same terms and a value per placeholder', () => {
    const filter = { types: ['a', 'b'], from: 1, search: ' evt_1 ' }
    const sqlite = filterSql(filter, sqliteDialect)
    expect(sqlite.sql.split('?').length - 1).toBe(sqlite.params.length)
    expect(sqlite.params).toEqual(['a', 'b', 1, 'evt_1', 'evt_2', 'evt_1', 'evt_2'])
    const pg = filterSql(filter, postgresDialect)
    expect(pg.sql).toContain('COLLATE "C"')
    expect(pg.params).toEqual([['a', 'b'], 1, 'evt_1', 'evt_2', 'evt_1', 'evt_2'])
    expect(filterSql({}, sqliteDialect)).toEqual({ sql: '1', params: [] })
  })
})
