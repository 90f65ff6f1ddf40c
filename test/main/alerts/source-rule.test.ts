import { describe, expect, it } from 'vitest'
import { sourceConditions } from '../../../src/main/sources'
import type { SourceStatus } from '../../../src/shared/contract/sources'

const source = (name: string, state: SourceStatus['state'], problem: string | null = null): SourceStatus => ({
  name,
  url: `http://relay.test/${name}`,
  state,
  problem,
  tokenStored: true,
  synced: 0,
  remaining: null,
  lastContactAt: null,
  liveSince: null,
})

describe('the relay source rule over one look at the sources', () => {
  it('is active for a source that does not answer or refuses the token, and only for those', () => {
    const { conditions } = sourceConditions(
      [
        source('a', 'unreachable', 'The relay at http://relay.test/a cannot be reached (ECONNREFUSED).'),
        source('b', 'refused'),
        source('c', 'catching-up'),
        source('d', 'live'),
        source('e', 'storage', 'disk full'),
      ],
      new Set(),
    )
    expect(conditions.map((c) => [c.subject, c.active])).toEqual([
      ['source:a', true],
      ['source:b', true],
      ['source:c', false],
      ['source:d', false],
      ['source:e', false],
    ])
    expect(conditions[0]).toMatchObject({
      rule: 'relay.source',
      title: 'Relay source a unreachable',
      body: 'The relay at http://relay.test/a cannot be reached (ECONNREFUSED).',
      confirm: { count: 3 },
    })
    expect(conditions[1]).toMatchObject({
      title: 'Relay source b refuses the token',
      body: 'The relay at http://relay.test/b does not answer.',
    })
  })

  it('closes a source that was watched and is gone as "source removed", and forgets it afterwards', () => {
    const first = sourceConditions([source('office', 'unreachable')], new Set())
    const second = sourceConditions([], first.watched)
    expect(second.conditions).toEqual([
      expect.objectContaining({ subject: 'source:office', active: false, gone: 'source removed' }),
    ])
    expect(sourceConditions([], second.watched).conditions).toEqual([])
  })
})
