import { readRuntimeInfo } from '../../../src/main/config'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { unwrap } from '../../../src/shared/result'
import { signBody } from '../../../src/main/webhooks'
import { runMain } from '../../support/cli'
import { useServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { envelope, post, secretA } from '../webhooks/helpers'
import { useListenProcess } from './processes'
import { signatureValid, useTestTargets } from './target'

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  WATCHDESK_WEBHOOK_SECRETS: secretA,
  WATCHDESK_LOG_LEVEL: 'warn',
})
const send = (url: string, id: string, type = 'funding.completed') => {
  const body = envelope(id, type)
  return post(url, body, { 'x-service-signature': signBody(secretA, body) })
}

describe('watchdesk listen', () => {
  const tempDir = useTempDir('watchdesk-listen-')
  const startTarget = useTestTargets()
  const startListen = useListenProcess()

  it('prints one line per event and per attempt, and on Ctrl-C lets the attempt under way finish', async () => {
    const app = await startTarget(() => ({ status: 200, body: '{}', delayMs: 800 }))
    const dataDir = tempDir()
    const listen = await startListen(['--forward-to', app.url, '--data-dir', dataDir], env())
    // Its address is published for the other commands (send-test-event) before it says it listens.
    expect(readRuntimeInfo(dataDir)).toMatchObject({
      pid: listen.process.pid,
      listenerUrl: listen.webhookUrl.replace(/\/webhooks$/, ''),
    })
    expect((await send(listen.webhookUrl, 'evt_cli_1')).status).toBe(200)
    await waitFor(() => app.received.length === 1, 'the forward under way')
    listen.process.kill('SIGINT')
    expect(await listen.exited).toBe(0)
    const lines = listen.stdout().trim().split('\n')
    expect(lines[0]).toBe('← funding.completed evt_cli_1')
    expect(lines[1]).toMatch(new RegExp(`^→ 200 POST ${app.url} evt_cli_1 \\d+ ms$`))
    expect(lines).toHaveLength(2)
    expect(app.acknowledged.has('evt_cli_1')).toBe(true)
    expect(listen.stderr()).toContain('stopped.')
    expect(readRuntimeInfo(dataDir, { includeDead: true })).toBeNull()
  })

  it('names a config.json edited into invalid JSON while it runs, and keeps receiving with the last good config', async () => {
    const dataDir = tempDir()
    const listen = await startListen(['--data-dir', dataDir], env())
    writeFileSync(join(dataDir, 'config.json'), '{ "retention": { "events": { "days": 30 } ')
    await waitFor(
      () => listen.stderr().includes('configuration edit not applied') || undefined,
      'the warning about the edit',
    )
    expect(listen.stderr()).toContain('The last valid configuration stays in use until the file is fixed.')
    expect((await send(listen.webhookUrl, 'evt_cli_bad_config')).status).toBe(200)
    listen.process.kill('SIGINT')
    expect(await listen.exited).toBe(0)
  })

  // One process for the three flags (a listen start is ~0.6 CPU-s): what each changes is apart,
  // the lines (--json), what is forwarded (--events) and the signature the target checks.
  it('--json prints JSON lines; --events limits what is forwarded; --forward-secret-env re-signs', async () => {
    const app = await startTarget()
    const listen = await startListen(
      [
        '--forward-to',
        app.url,
        '--events',
        'card.*',
        '--json',
        '--forward-secret-env',
        'APP_SECRET',
        '--data-dir',
        tempDir(),
      ],
      { ...env(), APP_SECRET: 'app_local_secret_123' },
    )
    await send(listen.webhookUrl, 'evt_j1', 'funding.completed')
    await send(listen.webhookUrl, 'evt_j2', 'card.created')
    await waitFor(
      () => app.acknowledged.has('evt_j2') && listen.stdout().includes('"kind":"attempt"'),
      'the card event forwarded',
    )
    const lines = await waitFor(() => {
      const l = listen
        .stdout()
        .trim()
        .split('\n')
        .map((x) => JSON.parse(x))
      return l.length === 3 && l
    }, 'three lines')
    expect(
      lines
        .filter((l) => l.kind === 'event')
        .map((l) => l.id)
        .sort(),
    ).toEqual(['evt_j1', 'evt_j2'])
    expect(lines.find((l) => l.kind === 'attempt')).toMatchObject({
      id: 'evt_j2',
      status: 200,
      state: 'delivered',
    })
    expect(app.received.map((r) => r.id)).toEqual(['evt_j2'])
    expect(signatureValid(app.received[0]!, 'app_local_secret_123')).toBe(true)
    expect(signatureValid(app.received[0]!, secretA)).toBe(false)
    expect(listen.stdout()).not.toContain('app_local_secret_123')
    expect(listen.stderr()).not.toContain('app_local_secret_123')
  })
})

describe('kill -9 during a load, then restart', () => {
  const tempDir = useTempDir('watchdesk-kill-')
  const startTarget = useTestTargets()
  const startListen = useListenProcess()
  const startServe = useServeProcess()

  const starters = {
    listen: async (url: string, dataDir: string) => {
      const p = await startListen(['--forward-to', url, '--data-dir', dataDir], env())
      return { process: p.process, webhookUrl: p.webhookUrl }
    },
    serve: async (url: string, dataDir: string) => {
      const p = await startServe(['--forward-to', url, '--data-dir', dataDir], env())
      return { process: p.process, webhookUrl: `${p.listenerUrl}/webhooks` }
    },
  }

  it.each(['listen', 'serve'] as const)(
    '%s: every event that got 200 reaches the target at least once',
    async (command) => {
      // A slow app, so a backlog is queued in the outbox when the process dies.
      const app = await startTarget(() => ({ status: 200, delayMs: 20 }))
      const dataDir = tempDir()
      const first = await starters[command](app.url, dataDir)
      const acknowledged = new Set<string>()
      let n = 0
      let killedAt = -1
      const sender = async () => {
        while (killedAt < 0) {
          const id = `evt_kill_${n++}`
          try {
            if ((await send(first.webhookUrl, id)).status === 200) acknowledged.add(id)
          } catch {
            // the process is gone
          }
        }
      }
      const senders = Array.from({ length: 16 }, sender)
      // Enough for a backlog at the kill (asserted below): the target takes 20 ms an answer, so at
      // 150 acknowledged most are still queued; 600 and 300 proved nothing more and cost more.
      await waitFor(() => acknowledged.size >= 150, '150 events acknowledged', { timeoutMs: 30_000 })
      first.process.kill('SIGKILL')
      killedAt = acknowledged.size
      await Promise.all(senders)
      const backlog = [...acknowledged].filter((id) => !app.acknowledged.has(id)).length
      expect(backlog).toBeGreaterThan(0)
      await starters[command](app.url, dataDir)
      await waitFor(
        () => [...acknowledged].every((id) => app.acknowledged.has(id)),
        'every acknowledged event at the target',
        {
          timeoutMs: 40_000,
        },
      )
    },
    90_000,
  )
})

// `events replay` runs in this process (runMain: the same parsing, lines and exit codes as the
// binary); listen and serve stay real processes, since what is tested is theirs: signals, exit,
// what a killed process left.
describe('watchdesk events replay', () => {
  const tempDir = useTempDir('watchdesk-replay-')
  const startTarget = useTestTargets()
  const startListen = useListenProcess()

  it('replays one event, and a filtered set after a confirmation above 100 events', async () => {
    const dataDir = tempDir()
    const listen = await startListen(['--data-dir', dataDir], env())
    // Sixteen at a time (one after another timed the test out at load average 25): 100 funding
    // events and two others, so that the filter leaves one over the confirmation's 100.
    const cards = new Set([3, 7])
    const sent = Array.from({ length: 102 }, (_, i) => i)
    for (let from = 0; from < sent.length; from += 16)
      await Promise.all(
        sent
          .slice(from, from + 16)
          .map((i) =>
            send(listen.webhookUrl, `evt_rp_${i}`, cards.has(i) ? 'card.created' : 'funding.completed'),
          ),
      )
    await send(listen.webhookUrl, 'evt_rp_extra', 'funding.completed')
    listen.process.kill('SIGINT')
    expect(await listen.exited).toBe(0)

    const app = await startTarget()
    const one = await runMain(['events', 'replay', 'evt_rp_3', '--to', app.url, '--data-dir', dataDir], env())
    expect(one.code).toBe(0)
    expect(one.stdout).toMatch(new RegExp(`^→ 200 POST ${app.url} evt_rp_3 \\d+ ms\\n$`))
    expect(one.stderr).toContain('Replayed 1 event: delivered.')
    expect(app.received.map((r) => r.id)).toEqual(['evt_rp_3'])
    expect(signatureValid(app.received[0]!, secretA)).toBe(true)

    const since = new Date(Date.now() - 3_600_000).toISOString()
    const set = [
      'events',
      'replay',
      '--type',
      'funding.completed',
      '--since',
      since,
      '--to',
      app.url,
      '--data-dir',
      dataDir,
    ]
    const refused = await runMain(set, env())
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('101 events match: pass --yes')
    const all = await runMain([...set, '--yes'], env())
    expect(all.code).toBe(0)
    expect(all.stderr).toContain('Replayed 101 events: all delivered.')
    const funding = app.received
      .slice(1)
      .map((r) => r.id)
      .sort()
    expect(funding).toEqual(
      [...sent.filter((i) => !cards.has(i)).map((i) => `evt_rp_${i}`), 'evt_rp_extra'].sort(),
    )
  }, 60_000)
})

describe('listen and replay say what happened', () => {
  const tempDir = useTempDir('watchdesk-say-')
  const startTarget = useTestTargets()
  const startListen = useListenProcess()
  const lines = (text: string) => text.trim().split('\n').filter(Boolean)

  it("prints each event's receive line (←) before its forward lines (→)", async () => {
    const app = await startTarget()
    const listen = await startListen(['--forward-to', app.url, '--data-dir', tempDir()], env())
    const ids = Array.from({ length: 30 }, (_, i) => `evt_order_${i}`)
    await Promise.all(ids.map((id) => send(listen.webhookUrl, id)))
    await waitFor(() => lines(listen.stdout()).length >= 60 || undefined, '30 receive and 30 forward lines')
    const out = lines(listen.stdout())
    expect(out).toHaveLength(60)
    for (const id of ids) {
      const received = out.indexOf(`← funding.completed ${id}`)
      const forwarded = out.findIndex((l) => l.startsWith('→ 200 POST') && l.includes(` ${id} `))
      expect(received, id).toBeGreaterThanOrEqual(0)
      expect(forwarded, id).toBeGreaterThan(received)
    }
  })

  it('says when a failed forward is retried, and retries a target that answers again within forward.probeSeconds', async () => {
    let up = false
    const app = await startTarget(() => (up ? { status: 200 } : { status: 503, body: 'deploying' }))
    const dataDir = tempDir()
    // A schedule whose second step is a minute: without the probe cap the target, once back, would
    // wait for it.
    const config = join(dataDir, 'overlay.json')
    writeFileSync(
      config,
      JSON.stringify({
        forward: { targets: { app: { url: app.url, retrySchedule: [200, 60_000] } }, probeSeconds: 2 },
      }),
    )
    const listen = await startListen(['--data-dir', dataDir, '--config', config], {
      ...env(),
      TZ: 'UTC',
    })
    const sentAt = Date.now()
    await send(listen.webhookUrl, 'evt_retry_1')
    const failure = await waitFor(
      () => lines(listen.stdout()).find((l) => l.startsWith('→ 503 POST')),
      'the first failure',
    )
    const at = /, will retry at (\d\d):(\d\d):(\d\d) \(attempt 2\)$/.exec(failure)
    expect(at, failure).not.toBeNull()
    const day = new Date(sentAt)
    const retryAt = Date.UTC(
      day.getUTCFullYear(),
      day.getUTCMonth(),
      day.getUTCDate(),
      +at![1]!,
      +at![2]!,
      +at![3]!,
    )
    expect(retryAt).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000) * 1000)
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 2_000)
    // Failing long enough for the pause to reach the schedule's minute (capped at 2 s).
    await waitFor(() => app.received.length >= 5 || undefined, 'five failed attempts', { timeoutMs: 15_000 })
    up = true
    const backAt = Date.now()
    await waitFor(() => app.acknowledged.has('evt_retry_1') || undefined, 'the retry after recovery', {
      timeoutMs: 6_000,
    })
    expect(Date.now() - backAt).toBeLessThan(6_000)
    await waitFor(
      () => /→ 200 POST \S+ evt_retry_1 \d+ ms\n/.test(listen.stdout()) || undefined,
      'the delivery printed',
    )
  }, 40_000)

  it('prints the true queue count at start: what an earlier run left queued', async () => {
    const app = await startTarget(() => ({ status: 503 }))
    const dataDir = tempDir()
    const first = await startListen(['--forward-to', app.url, '--data-dir', dataDir], env())
    for (let i = 0; i < 40; i++) await send(first.webhookUrl, `evt_queue_${i}`)
    first.process.kill('SIGINT')
    expect(await first.exited).toBe(0)
    await waitFor(
      () => first.stderr().includes('stopped;') || undefined,
      'the last line (stderr may end after exit)',
    )
    expect(first.stderr()).toContain('stopped; 40 forwards stay queued for the next run.')
    const second = await startListen(['--forward-to', app.url, '--data-dir', dataDir], env())
    // Its own line, which may come in a chunk after the "listening:" one.
    const line = await waitFor(
      () =>
        second
          .stderr()
          .split('\n')
          .find((l) => l.startsWith(`forwarding: ${app.url}`)),
      'the forwarding line',
    )
    expect(line).toBe(`forwarding: ${app.url} (events *; original signature; 40 queued)`)
  })

  it('a replay that also sends other queued events of its target says so, with counts', async () => {
    let up = false
    const app = await startTarget(() => (up ? { status: 200 } : { status: 503 }))
    const dataDir = tempDir()
    const listen = await startListen(['--data-dir', dataDir], env())
    for (let i = 1; i <= 5; i++) await send(listen.webhookUrl, `evt_flush_${i}`)
    listen.process.kill('SIGINT')
    expect(await listen.exited).toBe(0)

    const down = await runMain(
      [
        'events',
        'replay',
        'evt_flush_1',
        'evt_flush_2',
        'evt_flush_3',
        'evt_flush_4',
        '--to',
        app.url,
        '--data-dir',
        dataDir,
      ],
      env(),
    )
    expect(down.code).toBe(1)
    expect(down.stderr).toContain(
      `Replayed 4 events: 0 delivered, 4 failed and stay queued for url:${app.url}.`,
    )
    // Their retries are due a second later.
    const db = unwrap(openDatabase(join(dataDir, 'watchdesk.db'), { readonly: true }))
    try {
      await waitFor(
        () =>
          (
            db
              .prepare(`SELECT count(*) AS n FROM forward_outbox WHERE state = 'failing' AND due_at <= ?`)
              .get(Date.now()) as { n: number }
          ).n === 4 || undefined,
        'the four failed replays due again',
      )
    } finally {
      db.close()
    }
    up = true
    const one = await runMain(
      ['events', 'replay', 'evt_flush_5', '--to', app.url, '--data-dir', dataDir],
      env(),
    )
    expect(one.code).toBe(0)
    expect(one.stderr).toContain(
      `Replayed 1 event: delivered. 4 other queued events of url:${app.url} went out with it: 4 delivered.`,
    )
    expect(new Set(app.acknowledged)).toEqual(new Set([1, 2, 3, 4, 5].map((i) => `evt_flush_${i}`)))
  })
})
