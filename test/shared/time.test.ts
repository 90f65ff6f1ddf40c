import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  formatAge,
  formatClock,
  formatDateTime,
  formatDuration,
  formatMoment,
  zoneLabel,
} from '../../src/shared/time'

const at = Date.UTC(2026, 10, 24, 13, 7, 1, 916)

describe('one time format', () => {
  it('writes a point in time as 24-hour ISO-like text, with milliseconds only when asked', () => {
    expect(formatDateTime(at, { zone: 'utc' })).toBe('2026-11-24 13:07:01')
    expect(formatDateTime(at, { zone: 'utc', millis: true })).toBe('2026-11-24 13:07:01.916')
    expect(formatClock(Date.UTC(2026, 0, 2, 3, 4, 5), { zone: 'utc' })).toBe('03:04:05')
  })

  it('keeps a fixed width for every time, so columns never jiggle', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }), (ms) => {
        expect(formatDateTime(ms, { zone: 'utc' })).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
        expect(formatDateTime(ms, { millis: true })).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/)
      }),
    )
  })

  it('leaves the date out only when the moment is on the same day as now', () => {
    expect(formatMoment(at, at + 60_000, { zone: 'utc' })).toBe('13:07:01')
    expect(formatMoment(at, at + 86_400_000, { zone: 'utc' })).toBe('2026-11-24 13:07:01')
  })
})

describe('durations and ages', () => {
  it('says a duration in its two largest units', () => {
    expect(formatDuration(3_700)).toBe('3.7 s')
    expect(formatDuration(65_000)).toBe('1 min 5 s')
    expect(formatDuration(3_600_000 + 5 * 60_000 + 7_000)).toBe('1 h 5 min')
    expect(formatDuration(2 * 86_400_000 + 3 * 3_600_000)).toBe('2 d 3 h')
    expect(formatDuration(-5)).toBe('0.0 s')
  })

  it('says an age relative to now, past or ahead', () => {
    expect(formatAge(at, at + 300)).toBe('just now')
    expect(formatAge(at, at + 12_400)).toBe('12 s ago')
    expect(formatAge(at, at + 4 * 60_000)).toBe('4 min ago')
    expect(formatAge(at + 3_000, at)).toBe('in 3 s')
  })

  it('names the zone once, UTC when asked for it', () => {
    expect(zoneLabel(at, 'utc')).toBe('UTC')
    expect(zoneLabel(at)).toMatch(/^UTC([+-]\d{2}:\d{2})?( \S+)?$/)
  })
})
