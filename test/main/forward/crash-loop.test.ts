import { unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ForwardStatus } from '../../../src/shared/contract/forward'
import { openDatabase } from '../../../src/main/db'
import { startForward } from '../../../src/main/forward'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'
import { useFollowingConsoles } from '../relay/helpers'
import { secretA } from '../webhooks/helpers'
import { useTestTargets } from './target'

/** Issue 29 item 2: a forward worker restarting 2.5 times a second showed `health: ok, lastError:
 * null`. The fault here is real: the forward worker's database file is gone before the worker
 * opens it (the main thread's connection still reads it), so every start of the worker fails. */
describe('a forward worker that keeps stopping', () => {
  const tempDir = useTempDir('watchdesk-crash-loop-')
  const recorder = useRecorder()
  const consoles = useFollowingConsoles()
  const startTarget = useTestTargets()

  it('turns forward.status to crash_loop with the cause, pushes it to the screen and fires the forward.worker alert', async () => {
    const channel = await recorder()
    const app = await startTarget()
    const clock = manualClock()
    const backend = await consoles({
      dataDir: tempDir(),
      config: {
        forward: { targets: { app: { url: app.url } } },
        alerts: { channels: { hook: { type: 'webhook' } } },
      },
      secrets: { 'webhook-secret:wh_alpha': secretA, 'alert-channel:hook': channel.url },
      clock,
    })
    const pushed: ForwardStatus[] = []
    backend.context.push.subscribe((m) => {
      if (m.topic === 'forward.status') pushed.push(m.payload as ForwardStatus)
    })
    // A second forwarder over its own database, whose file is removed right after the main thread
    // opened it: the worker thread, still loading, finds no file at every start.
    const file = join(tempDir(), 'watchdesk.db')
    const db = unwrap(openDatabase(file))
    const starting = startForward({ ...backend.context, db }, { webhookSecrets: () => new Map() })
    unlinkSync(file)
    const forward = await starting
    try {
      const looping = await waitFor(
        () => {
          const s = forward.status()
          return s.worker.health === 'crash_loop' && s
        },
        'the crash loop in forward.status',
        { timeoutMs: 30_000 },
      )
      expect(looping.worker.restartsLastMinute).toBeGreaterThan(3)
      expect(looping.worker.lastError).toMatch(/database/i)
      expect(looping.problem).toMatch(/^The forward worker stopped \d+ times in the last minute \(.*database/)
      // The Overview's forwarding tile reads the forward.status push.
      await waitFor(() => pushed.some((p) => p.worker.health === 'crash_loop'), 'the crash loop pushed')
      // The alert: through the same status loop the app runs over its forward conditions.
      const watching = backend.services.alerts.watch(forward.conditions)
      try {
        const fired = await waitFor(async () => {
          clock.advance(5_000)
          await backend.services.alerts.idle()
          return channel.received.find((r) => r.json?.rule === 'forward.worker')
        }, 'the forward.worker alert')
        expect(fired.json).toMatchObject({
          rule: 'forward.worker',
          kind: 'fired',
          title: 'Forwarding stopped: the forward worker keeps restarting',
        })
        expect(fired.json.body ?? fired.json.detail ?? JSON.stringify(fired.json)).toMatch(
          /stopped \d+ times/,
        )
      } finally {
        watching.dispose()
      }
    } finally {
      await forward.stop()
      db.close()
    }
    // The console's own forwarder was never part of it.
    expect(backend.services.forward.status().worker).toMatchObject({ health: 'ok', restartsLastMinute: 0 })
  }, 60_000)
})
