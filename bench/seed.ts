import type { RelayStore } from '../src/main/relay'
import type { EventParams } from '../src/main/webhooks/sql'

/** Fills a relay store with `count` funding.completed events (`evt_catchup_0…`), committed in
 * batches, for the catch-up legs to read back. `data` is each event's data object. */
export async function seedCatchUpEvents(
  store: RelayStore,
  count: number,
  batchSize: number,
  data: (id: string) => Record<string, unknown>,
): Promise<void> {
  for (let i = 0; i < count; i += batchSize) {
    const batch: EventParams[] = Array.from({ length: Math.min(batchSize, count - i) }, (_, j) => {
      const id = `evt_catchup_${i + j}`
      const eventData = data(id)
      const text = JSON.stringify({
        id,
        type: 'funding.completed',
        created_at: '2025-01-01T00:00:00Z',
        data: eventData,
      })
      return {
        id,
        type: 'funding.completed',
        grp: 'payments',
        created_at: '2025-01-01T00:00:00Z',
        created_ms: 1735689600000,
        at: Date.now(),
        endpoint: 'wh_bench',
        data_id: `f_${id}`,
        body: Buffer.from(text),
        data: JSON.stringify(eventData),
      }
    })
    const r = await store.committer.commit(batch, [])
    if (!r.ok) throw new Error(r.failure.message)
  }
}
