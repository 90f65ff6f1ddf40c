import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  compare,
  describeChange,
  emptyShape,
  fieldsOf,
  learn,
  maxFieldsPerEvent,
  parseShape,
  serializeShape,
} from '../../../src/main/drift/shape'

const learned = (...samples: unknown[]) => {
  const shape = emptyShape('t')
  for (const s of samples) learn(shape, fieldsOf(s))
  return shape
}

describe('payload shapes', () => {
  it('list nested fields with their JSON types, array elements merged under `[]`', () => {
    const fields = fieldsOf({
      a: 1,
      b: { c: 'x', d: null },
      items: [{ sku: 's' }, { sku: 2, n: true }],
      'x.y': [],
    })
    expect(Object.fromEntries([...fields].map(([p, t]) => [p, [...t].sort()]))).toEqual({
      a: ['number'],
      b: ['object'],
      'b.c': ['string'],
      'b.d': ['null'],
      items: ['array'],
      'items[]': ['object'],
      'items[].sku': ['number', 'string'],
      'items[].n': ['boolean'],
      '["x.y"]': ['array'],
    })
    expect([...fieldsOf('text')]).toEqual([['', new Set(['string'])]])
  })

  it('name an added field, a retyped one and a removed one, each once, the top of a subtree only', () => {
    const shape = learned(
      { a: 1, b: { c: 'x' }, gone: { deep: 1 } },
      { a: 2, b: { c: 'y' }, gone: { deep: 2 } },
    )
    const changes = compare(shape, fieldsOf({ a: '2', b: { c: 'z' }, fresh: { inner: 1 } }))
    expect(changes.map(describeChange)).toEqual([
      'a retyped number → string',
      'fresh added (object)',
      'gone removed (was object)',
    ])
  })

  it('do not call an optional field removed, nor a type seen before retyped', () => {
    const shape = learned({ a: 1, opt: 'x' }, { a: null })
    expect(compare(shape, fieldsOf({ a: null }))).toEqual([])
    expect(compare(shape, fieldsOf({ a: 3, opt: 'y' }))).toEqual([])
  })

  it('find no change in an event of the learned shape (any JSON value)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const shape = learned(value)
        expect(compare(shape, fieldsOf(value))).toEqual([])
      }),
    )
  })

  it('survive saving and loading unchanged', () => {
    const shape = learned({ a: 1, b: [{ c: 'x' }] }, { a: 'one' })
    expect(parseShape('t', serializeShape(shape))).toEqual(shape)
  })

  it('bound what one event can add, however wide or deep', () => {
    const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]))
    expect(fieldsOf(wide).size).toBe(maxFieldsPerEvent)
    let deep: unknown = 1
    for (let i = 0; i < 1_000; i++) deep = { d: deep }
    expect(fieldsOf(deep).size).toBeLessThanOrEqual(10)
  })
})
