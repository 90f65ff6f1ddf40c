import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { DriftConfig, isAcknowledged } from '../../src/shared/drift'
import type { ShapeChange } from '../../src/shared/contract/drift'

const change = (path: string): ShapeChange => ({ kind: 'added', path, from: [], to: ['string'] })

describe('drift.acknowledged entries', () => {
  it('match a type and a field path, `*` matching any run of characters in either', () => {
    expect(isAcknowledged(['payment.succeeded fee'], 'payment.succeeded', change('fee'))).toBe(true)
    expect(isAcknowledged(['payment.succeeded fee'], 'payment.failed', change('fee'))).toBe(false)
    expect(isAcknowledged(['payment.succeeded fee'], 'payment.succeeded', change('fees'))).toBe(false)
    expect(isAcknowledged(['payment.* fee'], 'payment.failed', change('fee'))).toBe(true)
    expect(isAcknowledged(['* items[].sku'], 'order.created', change('items[].sku'))).toBe(true)
  })

  it('cover the fields under a named field, and a type alone covers all its fields', () => {
    expect(isAcknowledged(['order.created metadata'], 'order.created', change('metadata.order_ref'))).toBe(
      true,
    )
    expect(isAcknowledged(['order.created items'], 'order.created', change('items[].sku'))).toBe(true)
    expect(isAcknowledged(['order.created meta'], 'order.created', change('metadata'))).toBe(false)
    expect(isAcknowledged(['order.created'], 'order.created', change('anything.deep'))).toBe(true)
    expect(isAcknowledged(['order.created data'], 'order.created', change(''))).toBe(true)
  })

  it('treat regular-expression characters in an entry literally', () => {
    expect(isAcknowledged(['payment.succeeded a.b'], 'payment.succeeded', change('aXb'))).toBe(false)
    expect(isAcknowledged(['payment+ fee'], 'paymenttt', change('fee'))).toBe(false)
  })

  it('never throw, whatever the entry', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.string(), fc.string(), (entries, type, path) => {
        expect(typeof isAcknowledged(entries, type, change(path))).toBe('boolean')
      }),
    )
  })

  it('default to learning 10 events, enabled, nothing acknowledged', () => {
    expect(DriftConfig.parse({})).toEqual({ enabled: true, learnEvents: 10, acknowledged: [] })
  })
})
