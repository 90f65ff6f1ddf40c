import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { enqueueOnCommit, openForwardStore, resolveTargets, startForward } from '../../../src/main/forward'
import type { AttemptReport } from '../../../src/main/forward'
import { parseEnvelope } from '../../../src/main/webhooks'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import { eventParams } from '../../../src/main/webhooks/store'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useFollowingConsoles } from '../relay/helpers'
import { envelope, secretA } from '../webhooks/helpers'
import { signatureValid, useTestTargets } from './target'

/** Issue 33.5: the forwarder's in-thread mode is an in-process transport for the forward worker's
 * own handlers (engine.ts), so what the worker does at start and per attempt holds here too. */
describe('the forwarder in this thread', () => {
  const tempDir = useTempDir('watchdesk-forward-in-thread-')
  const consoles = useFollowingConsoles()
  const startTarget = useTestTargets()

  it("frees an earlier run's leases at start, sends every row with the original signature, reports each attempt and the status, and stops with nothing queued", async () => {
    const app = await startTarget()
    const backend = await consoles({
      dataDir: tempDir(),
      config: { forward: { targets: { app: { url: app.url } } } },
      secrets: { 'webhook-secret:wh_alpha': secretA },
    })
    // A forwarder over a database of its own, whose rows an earlier run leased for ten hours.
    const db = unwrap(openDatabase(join(tempDir(), 'own.db')))
    const store = openForwardStore(db.name)
    const forwardConfig = backend.context.config().forward
    store.syncRoutes(resolveTargets(forwardConfig, [], new Map()))
    const ids = ['evt_thread_1', 'evt_thread_2', 'evt_thread_3']
    const now = Date.now()
    const committed = await inThreadCommitter(db, [enqueueOnCommit]).commit(
      ids.map((id) => {
        const body = Buffer.from(envelope(id))
        return eventParams({ envelope: unwrap(parseEnvelope(body)), body, endpoint: 'wh_alpha', at: now })
      }),
      [],
    )
    expect(committed.ok).toBe(true)
    expect(store.lease('app', 10, now, now + 36_000_000, 'earlier-run', now)).toHaveLength(3)
    store.close()

    const attempts: AttemptReport[] = []
    const forward = await startForward(
      { ...backend.context, db },
      {
        inThread: true,
        exclusive: true,
        onAttempt: (a) => attempts.push(a),
        webhookSecrets: () => new Map([['wh_alpha', Buffer.from(secretA)]]),
      },
    )
    await waitFor(() => app.acknowledged.size === 3 || undefined, 'the three leased rows delivered', {
      timeoutMs: 30_000,
    })
    expect([...app.acknowledged].sort()).toEqual(ids)
    expect(app.received.every((r) => signatureValid(r, secretA))).toBe(true)
    await waitFor(() => attempts.length === 3 || undefined, 'the three attempts reported')
    expect(attempts.map((a) => [a.target.name, a.state])).toEqual([
      ['app', 'delivered'],
      ['app', 'delivered'],
      ['app', 'delivered'],
    ])
    // The attempts are recorded with the dispatcher's next look at the outbox.
    const status = await waitFor(
      () => forward.status().targets[0]?.pending === 0 && forward.status(),
      'the attempts recorded',
    )
    expect(status.worker.health).toBe('ok')
    expect(status.targets).toMatchObject([{ name: 'app', delivered: 3, pending: 0 }])
    expect(await forward.stop()).toBe(0)
    db.close()
  }, 60_000)
})
