import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { createDispatcher, enqueueOnCommit, openForwardStore } from '../../../src/main/forward'
import { resolveTargets } from '../../../src/main/forward/targets'
import { silentLogger } from '../../../src/main/log'
import { signBody, parseEnvelope } from '../../../src/main/webhooks'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import { eventParams } from '../../../src/main/webhooks/store'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { envelope, secretA } from '../webhooks/helpers'
import { signatureValid, useTestTargets } from './target'

describe('a target that is down for a while', () => {
  const tempDir = useTempDir('watchdesk-forward-')
  const startTarget = useTestTargets()

  it('answering 503 for its first 10 s receives every event, probed on its back-off schedule capped at probeSeconds (10 s)', async () => {
    const t0 = Date.parse('2026-11-20T10:00:00Z')
    const clock = manualClock(t0)
    const target = await startTarget(() =>
      clock.now() - t0 < 10_000 ? { status: 503, body: 'starting' } : { status: 200 },
    )
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    const store = openForwardStore(db.name)
    const targets = resolveTargets(
      {
        targets: { app: { url: target.url } },
        authorizationBudgetMs: 1500,
        probeSeconds: 10,
        maxAgeHours: 24,
      },
      [],
      new Map(),
    )
    store.syncRoutes(targets)
    const committer = inThreadCommitter(db, [enqueueOnCommit])
    const ids = Array.from({ length: 200 }, (_, i) => `evt_down_${i}`)
    const committed = await committer.commit(
      ids.map((id) => {
        const body = Buffer.from(envelope(id))
        return eventParams({ envelope: unwrap(parseEnvelope(body)), body, endpoint: 'wh_alpha', at: t0 })
      }),
      [],
    )
    expect(committed.ok).toBe(true)
    const dispatcher = createDispatcher({
      store,
      clock,
      log: silentLogger,
      owner: 'test',
      maxAgeMs: () => 24 * 3_600_000,
      originalSignature: (_endpoint, body) => signBody(secretA, body),
    })
    dispatcher.setTargets(targets, { authorizer: null, probeMs: 10_000 })
    // Time moves only here, a second at a time, once nothing is under way.
    const sentAt: number[] = []
    let seen = 0
    while (target.acknowledged.size < ids.length && clock.now() - t0 < 3_600_000) {
      clock.advance(1000)
      await waitFor(() => dispatcher.busy() === 0, 'the attempts under way to finish')
      for (; seen < target.received.length; seen++) sentAt.push(clock.now() - t0)
    }
    await dispatcher.stop()
    expect(new Set(target.acknowledged)).toEqual(new Set(ids))
    expect(
      target.received
        .filter((r) => r.id && target.acknowledged.has(r.id))
        .every((r) => signatureValid(r, secretA)),
    ).toBe(true)
    // While it failed: one first round (8 at once, a few more before the failures add up), then
    // a single probe after 1 s, 5 s and 10 s (the schedule's 30 s capped at probeSeconds); not
    // 200 events × their retries.
    const firstRound = sentAt.filter((t) => t === 1000).length
    expect(firstRound).toBeGreaterThanOrEqual(8)
    expect(firstRound).toBeLessThanOrEqual(8 + 2)
    expect(sentAt.filter((t) => t > 1000 && t < 17_000)).toEqual([2000, 7000])
    // The probe at 17 s (within 10 s of the target answering again at 10 s) succeeds and the
    // whole queue drains at once.
    expect(clock.now() - t0).toBe(17_000)
    expect(target.received.length).toBe(ids.length + firstRound + 2)
    const forwards = store.eventForwarding(1)
    expect(forwards.forwards[0]).toMatchObject({ state: 'delivered' })
    store.close()
    db.close()
  }, 60_000)
})
