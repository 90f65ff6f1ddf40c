import type { IncomingEvent } from '../../../src/main/webhooks/store'

/** `n` failed payouts (ids `${prefix}_0…`), each about 200 bytes: rows for the event commands to
 * print, committed with `inThreadCommitter(db).commit(payoutEvents(n, p).map(eventParams), [])`. */
export function payoutEvents(n: number, prefix: string): IncomingEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const envelope = {
      id: `${prefix}_${i}`,
      type: 'payout.failed',
      created_at: '2025-01-01T00:00:00Z',
      data: { id: `po_${i}`, note: 'x'.repeat(100) },
    }
    return { envelope, body: Buffer.from(JSON.stringify(envelope)), endpoint: 'env-1', at: Date.now() }
  })
}
