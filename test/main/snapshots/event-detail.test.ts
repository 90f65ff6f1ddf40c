import { describe, expect, it } from 'vitest'
import { eventsApi } from '../../../src/main/api/events'
import type { AppContext } from '../../../src/main/context'
import { readArrivals, toleranceOf } from '../../../src/main/replay'
import type { Services } from '../../../src/main/services'
import { createEventStore } from '../../../src/main/webhooks'
import { ReplayConfig } from '../../../src/shared/config'
import { commitBetweenReads } from '../../support/between-reads'
import { useTempDir } from '../../support/temp'
import { listenerDatabase, t0 } from './support'

/** The console's events methods over `db` (the stores the services build on ctx.db). */
function eventsOn(db: AppContext['db']) {
  const tolerance = toleranceOf(ReplayConfig.parse({}))
  const services = {
    webhooks: { store: createEventStore(db) },
    replay: { arrivals: (event) => readArrivals(db, event, tolerance) },
  } as Pick<Services, 'webhooks' | 'replay'> as Services
  return eventsApi({ db } as AppContext, services)
}

describe('the events methods read one snapshot', () => {
  const dir = useTempDir()

  it("events.get shows as many arrivals as the event's deliveries when a redelivery commits between the reads", async () => {
    const console = listenerDatabase(dir())
    console.deliver('evt_detail', t0)
    const api = eventsOn(
      commitBetweenReads(
        console.reader(),
        (sql) => sql.includes('FROM event_arrivals'),
        () => console.deliver('evt_detail', t0 + 60_000),
      ),
    )

    const first = await api['events.get']({ id: 'evt_detail' })
    if (!first.ok) throw new Error(first.error.message)
    // Before the redelivery: one delivery, one arrival (not one delivery beside two arrivals).
    expect([first.value.deliveries, first.value.arrivals?.length]).toEqual([1, 1])
    const second = await api['events.get']({ id: 'evt_detail' })
    if (!second.ok) throw new Error(second.error.message)
    expect([second.value.deliveries, second.value.arrivals?.length]).toEqual([2, 2])
  })

  it('events.count never counts more matching events than events in all when one commits between the counts', async () => {
    const console = listenerDatabase(dir())
    console.deliver('evt_a', t0)
    const filter = { types: ['funding.completed'] }
    // Retention removes the matching event between the two counts (the commit worker's prune).
    const api = eventsOn(
      commitBetweenReads(
        console.reader(),
        (sql) => sql.includes('count(*)'),
        () => console.writer.prepare("DELETE FROM events WHERE id = 'evt_a'").run(),
        2,
      ),
    )

    const counted = await api['events.count']({ filter })
    if (!counted.ok) throw new Error(counted.error.message)
    expect([counted.value.count, counted.value.total]).toEqual([1, 1])
  })
})
