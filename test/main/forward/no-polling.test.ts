import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ForwardTargetStatus } from '../../../src/shared/contract/forward'
import { openDatabase } from '../../../src/main/db'
import { createDispatcher, enqueueOnCommit, openForwardStore } from '../../../src/main/forward'
import type { ForwardStore } from '../../../src/main/forward/store'
import { resolveTargets } from '../../../src/main/forward/targets'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore, observeSecrets } from '../../../src/main/secrets'
import { parseEnvelope, signBody } from '../../../src/main/webhooks'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import { loadSecretsCache } from '../../../src/main/webhooks/secrets-cache'
import { eventParams } from '../../../src/main/webhooks/store'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { envelope, post, secretA, useWebhookBackend } from '../webhooks/helpers'
import { signatureValid, useTestTargets } from './target'

const t0 = Date.parse('2026-11-20T10:00:00Z')

/** Counts the worker threads this thread starts from now on (Node's `worker_threads` channel). */
function threadStarts(): { readonly count: number; dispose(): void } {
  let count = 0
  const onStart = () => count++
  subscribe('worker_threads', onStart)
  return {
    get count() {
      return count
    },
    dispose: () => unsubscribe('worker_threads', onStart),
  }
}

const signedA = (body: string) => ({ 'x-service-signature': signBody(secretA, body) })

/** The real store, counting every call the dispatcher makes to it (each is a query). */
function counting(store: ForwardStore): { store: ForwardStore; calls: string[] } {
  const calls: string[] = []
  const counted = new Proxy(store, {
    get(target, key: string) {
      const value = target[key as keyof ForwardStore]
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        calls.push(key)
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { store: counted, calls }
}

/** A dispatcher on a manual clock over a real database, one target subscribed to `events`. */
async function dispatcherFor(dir: string, url: string, events: string[]) {
  const clock = manualClock(t0)
  const db = unwrap(openDatabase(join(dir, 'watchdesk.db')))
  const real = openForwardStore(db.name)
  const targets = resolveTargets(
    { targets: { app: { url, events } }, authorizationBudgetMs: 1500, probeSeconds: 10, maxAgeHours: 24 },
    [],
    new Map(),
  )
  real.syncRoutes(targets)
  const { store, calls } = counting(real)
  const statuses: ForwardTargetStatus[][] = []
  const dispatcher = createDispatcher({
    store,
    clock,
    log: silentLogger,
    owner: 'test',
    maxAgeMs: () => 24 * 3_600_000,
    originalSignature: () => null,
    onStatus: (s) => statuses.push(s),
  })
  dispatcher.setTargets(targets, { authorizer: null, probeMs: 10_000 })
  const committer = inThreadCommitter(db, [enqueueOnCommit])
  const commit = async (id: string, type: string) => {
    const body = Buffer.from(envelope(id, type))
    const params = eventParams({
      envelope: unwrap(parseEnvelope(body)),
      body,
      endpoint: 'wh_alpha',
      at: clock.now(),
    })
    expect((await committer.commit([params], [])).ok).toBe(true)
    dispatcher.kick()
  }
  /** Nothing under way, and the status change reported (its report waits up to 250 ms). */
  const settled = async () => {
    await waitFor(() => dispatcher.busy() === 0, 'the dispatcher settled')
    clock.advance(250)
  }
  await settled()
  const close = async () => {
    await dispatcher.stop()
    real.close()
    db.close()
  }
  return { clock, dispatcher, calls, statuses, commit, settled, close }
}

describe('the forwarder does not poll', () => {
  const tempDir = useTempDir('watchdesk-no-polling-')
  const startTarget = useTestTargets()
  const startBackend = useWebhookBackend()

  it('runs no query and holds no timer while nothing is queued, however long it idles', async () => {
    const target = await startTarget()
    const d = await dispatcherFor(tempDir(), target.url, ['*'])
    d.calls.length = 0
    for (let i = 0; i < 60; i++) d.clock.advance(1_000)
    await d.settled()
    expect(d.calls).toEqual([])
    expect(d.clock.pending()).toBe(0)
    // A kick (a committed event) wakes it at once.
    await d.commit('evt_np_1', 'funding.completed')
    await waitFor(() => target.acknowledged.has('evt_np_1'), 'the event at the target')
    await d.close()
  })

  it('sleeps until the earliest due row and wakes then, not before', async () => {
    const target = await startTarget()
    const d = await dispatcherFor(tempDir(), target.url, ['card.*'])
    // An authorization request's row is due a minute after its commit (the relay takes it first).
    const due = d.clock.now() + 60_000
    await d.commit('evt_np_auth', 'card.authorization.request')
    await d.settled()
    // One timer: the row's due time.
    expect(d.clock.pending()).toBe(1)
    d.calls.length = 0
    d.clock.advance(due - d.clock.now() - 1)
    await waitFor(() => d.dispatcher.busy() === 0, 'nothing under way')
    expect(d.calls).toEqual([])
    expect(target.received).toEqual([])
    d.clock.advance(1)
    await waitFor(() => target.acknowledged.has('evt_np_auth'), 'the row sent when it came due')
    await d.close()
  })

  it('reports its status when it changes, and not while nothing changes', async () => {
    const target = await startTarget()
    const d = await dispatcherFor(tempDir(), target.url, ['*'])
    await d.commit('evt_np_s', 'funding.completed')
    await waitFor(() => target.acknowledged.has('evt_np_s'), 'the event at the target')
    await d.settled()
    expect(d.statuses.at(-1)?.[0]).toMatchObject({ name: 'app', delivered: 1, pending: 0, inFlight: 0 })
    const reported = d.statuses.length
    for (let i = 0; i < 60; i++) d.clock.advance(1_000)
    expect(d.statuses.length).toBe(reported)
    await d.close()
  })

  it('the secrets cache says when a secret changed, and when one was deleted', async () => {
    const secrets = observeSecrets(createMemoryStore())
    const cache = await loadSecretsCache(secrets, silentLogger)
    let changes = 0
    const sub = cache.onChange(() => changes++)
    unwrap(await secrets.set('webhook-secret:wh_new', 'whsec_new_0123456789'))
    await waitFor(() => changes === 1, 'the change event for the new secret')
    expect(cache.secretOf('wh_new')).toBe('whsec_new_0123456789')
    unwrap(await secrets.delete('webhook-secret:wh_new'))
    await waitFor(() => changes === 2, 'the change event for the deleted secret')
    sub.dispose()
    unwrap(await secrets.set('webhook-secret:wh_new', 'whsec_again_0123456789'))
    await waitFor(() => cache.secretOf('wh_new') !== null, 'the secret read again')
    expect(changes).toBe(2)
    cache.stop()
  })

  it('starts no forward worker thread while there is no target; the first target starts it, and it forwards with the secrets given before', async () => {
    const started = threadStarts()
    try {
      const backend = await startBackend()
      const forward = backend.services.forward
      const beforeTarget = started.count
      // Nothing to send: no thread, and the status says what a fresh worker's would.
      expect(forward.dispatcher.worker()).toBeNull()
      expect(forward.status().worker).toEqual({
        health: 'ok',
        restartsLastMinute: 0,
        lastError: null,
        lastErrorAt: null,
      })
      const before = envelope('evt_ft_before')
      expect((await post(backend.webhookUrl, before, signedA(before))).status).toBe(200)
      expect(started.count).toBe(beforeTarget)

      const target = await startTarget()
      unwrap(await forward.setTarget('app', { url: target.url }))
      await waitFor(() => forward.dispatcher.worker() !== null, 'the forward worker started')
      expect(started.count).toBe(beforeTarget + 1)
      const after = envelope('evt_ft_after')
      expect((await post(backend.webhookUrl, after, signedA(after))).status).toBe(200)
      await waitFor(() => target.acknowledged.has('evt_ft_after'), 'the event at the new target')
      // The webhook secrets reached the thread that started after them: the original signature.
      expect(
        signatureValid(
          target.received.find((r) => r.id === 'evt_ft_after')!,
          secretA,
        ),
      ).toBe(true)
      // An event committed while there was no target was not queued for it.
      expect(target.received.some((r) => r.id === 'evt_ft_before')).toBe(false)
    } finally {
      started.dispose()
    }
  })

  it('the forward worker re-signs with a webhook secret written after start, and pushes its status to the screen', async () => {
    const target = await startTarget()
    const backend = await startBackend({ config: { forward: { targets: { app: { url: target.url } } } } })
    const secret = 'whsec_added_after_start_42'
    unwrap(await backend.context.secrets.set('webhook-secret:wh_late', secret))
    const body = envelope('evt_np_late')
    await waitFor(
      async () =>
        (await post(`${backend.webhookUrl}/wh_late`, body, { 'x-service-signature': signBody(secret, body) }))
          .status === 200,
      'the listener to accept the new endpoint',
    )
    await waitFor(() => target.acknowledged.has('evt_np_late'), 'the event at the target')
    const received = target.received.find((r) => r.id === 'evt_np_late')!
    expect(signatureValid(received, secret)).toBe(true)
    // The worker's status reached the screen's push when it changed (no timer on either side).
    await waitFor(
      () =>
        backend.pushes.some(
          (m) =>
            m.topic === 'forward.status' &&
            (m.payload as { targets: ForwardTargetStatus[] }).targets[0]?.delivered === 1,
        ),
      'a forward.status push with the delivery',
    )
  })
})
