import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { hashToken } from '../../../src/main/relay'
import { createMemoryStore } from '../../../src/main/secrets'
import { sendTestEvent } from '../../../src/main/webhooks'
import { callApi, useTestConsole } from '../../support/console'
import { hex, jsonRpcNode, useRpcStandin } from '../../support/rpc-standin'
import { promtoolCheckMetrics } from '../../support/promtool'
import { repoRoot } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRecorder } from './harness'

/** Alert channels and /metrics through serve mode's real HTTP API (SQLite on disk). */

interface Mail {
  from: string
  to: string[]
  user: string | null
  data: string
}

function useSmtpSink(): (password: string) => Promise<{ port: number; mails: Mail[] }> {
  const servers: SMTPServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))))
  })
  return async (password) => {
    const mails: Mail[] = []
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, done) {
        if (auth.username === 'alerts' && auth.password === password)
          return done(null, { user: auth.username })
        return done(new Error('invalid credentials'))
      },
      onData(stream, session, done) {
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', () => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            user: (session.user as string | undefined) ?? null,
            data: Buffer.concat(chunks).toString('utf8'),
          })
          done()
        })
      },
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    servers.push(server)
    return { port: (server.server.address() as AddressInfo).port, mails }
  }
}

describe('alert channels and metrics in serve mode', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const recorder = useRecorder()
  const smtp = useSmtpSink()
  const standin = useRpcStandin()

  async function consoleWith(config: Record<string, unknown>, secrets: Record<string, string>) {
    const dir = tempDir()
    const rendererDir = join(dir, 'renderer')
    mkdirSync(rendererDir)
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>watchdesk</title>')
    const configFile = join(dir, 'overlay.json')
    writeFileSync(configFile, JSON.stringify(config))
    return startConsole({ dataDir: dir, configFile, rendererDir, secrets: createMemoryStore(secrets) })
  }

  it('sends a test alert by SMTP with the password from the secret store, and to a Slack-shaped webhook', async () => {
    const sink = await smtp('smtp-pass-4f9e')
    const slack = await recorder()
    const c = await consoleWith(
      {
        alerts: {
          channels: {
            mail: {
              type: 'email',
              host: '127.0.0.1',
              port: sink.port,
              user: 'alerts',
              from: 'watchdesk@example.com',
              to: ['ops@example.com'],
            },
            team: { type: 'slack' },
          },
        },
      },
      {
        'alert-channel:mail': 'smtp-pass-4f9e',
        'alert-channel:team': `${slack.url}/services/T000/B000/XXXXsecretpath`,
      },
    )
    const { status, json } = await callApi(c, 'alerts.test', {})
    expect(status).toBe(200)
    // The desktop channel is there by default beside the two added ones.
    expect(json.value.results.map((r: any) => [r.channel, r.ok])).toEqual([
      ['mail', true],
      ['team', true],
      ['desktop', true],
    ])
    expect(sink.mails).toHaveLength(1)
    expect(sink.mails[0]).toMatchObject({
      from: 'watchdesk@example.com',
      to: ['ops@example.com'],
      user: 'alerts',
    })
    expect(sink.mails[0]!.data).toMatch(/Subject: \[watchdesk\] watchdesk test alert/)
    expect(sink.mails[0]!.data).toContain('If you read this, the channel works.')
    expect(slack.received).toHaveLength(1)
    expect(slack.received[0]!.path).toBe('/services/T000/B000/XXXXsecretpath')
    // The link opens the console at its Alerts view; it never carries the launch token.
    expect(slack.received[0]!.json).toEqual({
      text: `:large_yellow_circle: *watchdesk test alert*\nIf you read this, the channel works.\n<${c.url}/#/alerts|Open in watchdesk>`,
    })
    expect(sink.mails[0]!.data).toContain(`open: ${c.url}/#/alerts`)
    expect(slack.received[0]!.body).not.toContain(c.token)

    // Channels are listed with their targets masked; the secrets appear in no answer.
    const channels = await callApi(c, 'alerts.channels')
    const listed = JSON.stringify(channels.json)
    expect(listed).not.toContain('smtp-pass-4f9e')
    expect(listed).not.toContain('XXXXsecretpath')
    expect(channels.json.value.channels.find((x: any) => x.name === 'team')).toMatchObject({
      type: 'slack',
      secret: 'keychain',
      target: `${slack.url}/…path`,
      problem: null,
    })
    const log = await callApi(c, 'alerts.log', {})
    // No console page is open: the desktop channel says so instead of claiming it was shown.
    expect(log.json.value.records.map((r: any) => [r.channel, r.kind, r.result])).toEqual([
      ['desktop', 'test', 'not_shown'],
      ['team', 'test', 'sent'],
      ['mail', 'test', 'sent'],
    ])
  })

  it('records a failed delivery with the cause, and says which secret is missing', async () => {
    const c = await consoleWith({ alerts: { channels: { hook: { type: 'webhook' } } } }, {})
    const { json } = await callApi(c, 'alerts.test', { channel: 'hook' })
    expect(json.value.results).toEqual([
      {
        channel: 'hook',
        ok: false,
        detail:
          'No webhook URL for channel "hook": store it with "watchdesk alerts channel set hook" (or in Settings → Alert channels), or set WATCHDESK_ALERT_CHANNEL_HOOK.',
      },
    ])
    const unknown = await callApi(c, 'alerts.test', { channel: 'nope' })
    expect(unknown.status).toBe(404)
  })

  it('stores a channel URL typed in Settings in the secret store, answers it only masked, and the next test alert reaches it', async () => {
    const hook = await recorder()
    const c = await consoleWith({ alerts: { channels: { hook: { type: 'webhook' } } } }, {})
    const refused = await callApi(c, 'alerts.channels.secret', { name: 'hook', secret: 'hooks.example.com' })
    expect(refused.json.error.message).toContain("A webhook channel's secret is its http(s) URL")
    const url = `${hook.url}/in/secret-path-88`
    const stored = await callApi(c, 'alerts.channels.secret', { name: 'hook', secret: url })
    expect(stored.json.value).toMatchObject({ name: 'hook', secret: 'keychain', problem: null })
    expect(JSON.stringify(stored.json)).not.toContain('secret-path-88')
    expect(await c.backend.context.secrets.get('alert-channel:hook')).toEqual({ ok: true, value: url })
    const { json } = await callApi(c, 'alerts.test', { channel: 'hook' })
    expect(json.value.results[0]).toMatchObject({ channel: 'hook', ok: true })
    expect(hook.received.map((r) => r.path)).toEqual(['/in/secret-path-88'])
    // Adding the webhook channel kept the desktop one.
    const channels = (await callApi(c, 'alerts.channels')).json.value.channels
    expect(channels.map((x: { name: string }) => x.name)).toEqual(['hook', 'desktop'])
  })

  it('serves /metrics in the Prometheus text format, behind the console token', async () => {
    const node = await standin(
      jsonRpcNode({
        eth_blockNumber: hex(5000),
        eth_getBlockByNumber: (params: unknown[]) =>
          params[0] === 'finalized'
            ? { number: hex(4990), timestamp: hex(Math.floor(Date.now() / 1000) - 20) }
            : params[0] === 'safe'
              ? { number: hex(4995), timestamp: hex(Math.floor(Date.now() / 1000) - 10) }
              : {
                  number: hex(5000),
                  hash: `0x${'11'.repeat(32)}`,
                  timestamp: hex(Math.floor(Date.now() / 1000)),
                },
        eth_syncing: false,
        net_peerCount: hex(25),
        web3_clientVersion: 'bor/v2.0.1',
        net_version: '137',
        eth_chainId: hex(137),
      }),
    )
    // A forward target nothing listens on, retried only after an hour: one failed attempt, one queued.
    const dead = createServer()
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()))
    const deadPort = (dead.address() as AddressInfo).port
    await new Promise<void>((r) => dead.close(() => r()))
    const c = await consoleWith(
      {
        chains: { '137': { url: node.url } },
        forward: {
          targets: { app: { url: `http://127.0.0.1:${deadPort}/hook`, retrySchedule: [3_600_000] } },
        },
      },
      {
        'webhook-secret:wh_1': 'whsec_metrics_0123456789',
      },
    )
    await waitFor(
      async () => {
        const { json } = await callApi(c, 'chains.list')
        return json.value.chains.find((x: any) => x.serviceId === 137).status === 'healthy' || undefined
      },
      'Polygon polled',
      { timeoutMs: 40_000 },
    )
    const listener = c.backend.services.webhooks.address().url!
    const sent = await sendTestEvent({
      url: `${listener}/webhooks`,
      secret: 'whsec_metrics_0123456789',
      type: 'payment.funding.completed',
    })
    expect(sent.ok && sent.value.status).toBe(200)
    const bad = await fetch(`${listener}/webhooks`, {
      method: 'POST',
      headers: { 'x-service-signature': 'f'.repeat(64) },
      body: '{}',
    })
    expect(bad.status).toBe(401)
    await waitFor(
      () => c.backend.services.forward.status().targets[0]?.failing === 1 || undefined,
      'the forward to the dead target to fail once',
    )
    // The attempt's report reaches the counter in its own message from the forward worker.
    await waitFor(async () => {
      const scraped = await fetch(`${c.url}/metrics`, { headers: { authorization: `Bearer ${c.token}` } })
      return (
        /^watchdesk_forward_failures_total\{capability="forward"\} 1$/m.test(await scraped.text()) ||
        undefined
      )
    }, 'the failed attempt to be counted')

    expect((await fetch(`${c.url}/metrics`)).status).toBe(401)
    const response = await fetch(`${c.url}/metrics`, { headers: { authorization: `Bearer ${c.token}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0.0.4/)
    const text = await response.text()
    expect(promtoolCheckMetrics(text)).toEqual({ code: 0, problems: '' })
    const families = parsePrometheusTextFormat(text)
    const family = (name: string) => families.find((f) => f.name === name)!
    const polygonValue = (name: string) =>
      Number(family(name).metrics.find((m) => m.labels?.chain === '137')!.value)
    expect(polygonValue('watchdesk_chain_head')).toBe(5000)
    expect(polygonValue('watchdesk_chain_finalized_lag_blocks')).toBe(10)
    expect(polygonValue('watchdesk_chain_safe_lag_blocks')).toBe(5)
    expect(polygonValue('watchdesk_chain_peers')).toBe(25)
    expect(polygonValue('watchdesk_chain_up')).toBe(1)
    // No reference: the service node is the one source counted, and nothing disagrees.
    expect(polygonValue('watchdesk_chain_sources_counted')).toBe(1)
    expect(polygonValue('watchdesk_chain_sources_disagree')).toBe(0)
    expect(polygonValue('watchdesk_chain_polls_total')).toBeGreaterThanOrEqual(1)
    // No failure yet: every kind, and the 429s, read 0 (a series from the first poll, not none).
    expect(
      family('watchdesk_chain_poll_errors_total')
        .metrics.filter((m) => m.labels?.chain === '137')
        .map((m) => [m.labels!.kind, m.value])
        .sort(),
    ).toEqual([
      ['http', '0'],
      ['malformed', '0'],
      ['network', '0'],
      ['rpc', '0'],
      ['timeout', '0'],
    ])
    expect(polygonValue('watchdesk_chain_rate_limited_total')).toBe(0)
    const polls = family('watchdesk_chain_poll_seconds')
    expect(polls.type).toBe('HISTOGRAM')
    // (The parser keeps a labelled histogram's buckets only: +Inf is its count.)
    expect(Number(polls.metrics[0]!.buckets!['+Inf'])).toBe(polygonValue('watchdesk_chain_polls_total'))
    expect(family('watchdesk_chain_reorgs_total')).toMatchObject({
      type: 'COUNTER',
      metrics: [{ labels: { chain: '137' }, value: '0' }],
    })
    expect(Number.isFinite(polygonValue('watchdesk_chain_latency_seconds'))).toBe(true)
    expect(
      family('watchdesk_chain_status').metrics.find(
        (m) => m.labels?.chain === '137' && m.labels.status === 'healthy',
      )!.value,
    ).toBe('1')
    expect(family('watchdesk_listener_accepted_total')).toMatchObject({
      type: 'COUNTER',
      metrics: [{ value: '1' }],
    })
    expect(family('watchdesk_listener_rejected_total').metrics.filter((m) => m.value !== '0')).toEqual([
      { labels: { reason: 'signature' }, value: '1' },
    ])
    const commit = family('watchdesk_listener_commit_seconds')
    expect(commit.type).toBe('HISTOGRAM')
    expect(commit.metrics[0]!.count).toBe('1')
    expect(family('watchdesk_forward_queue_depth').metrics).toEqual([
      { labels: { capability: 'forward' }, value: '1' },
    ])
    expect(family('watchdesk_forward_failures_total')).toMatchObject({
      type: 'COUNTER',
      metrics: [{ labels: { capability: 'forward' }, value: '1' }],
    })
    expect(family('watchdesk_incidents_open').metrics[0]!.value).toBe('0')
    // The endpoint-disablement watch (issue 32.4): its counters there from the start, at 0.
    for (const name of [
      'watchdesk_endpoint_disable_warnings_total',
      'watchdesk_endpoint_deliveries_failed_total',
    ])
      expect(family(name)).toMatchObject({ type: 'COUNTER', metrics: [{ value: '0' }] })

    // The Grafana dashboard asks only for what this scrape has, and every legend names the
    // instance (two consoles or relays on one graph stay apart).
    const dashboard = readFileSync(join(repoRoot, 'docs/grafana-dashboard.json'), 'utf8')
    const targets = [...dashboard.matchAll(/"expr": "([^"]+)",?\s*(?:"legendFormat": "([^"]*)")?/g)]
    expect(targets.length).toBeGreaterThan(10)
    for (const [, expr, legend] of targets) {
      for (const [name] of expr!.matchAll(/watchdesk_\w+/g))
        expect(
          families.map((f) => f.name),
          expr,
        ).toContain(name.replace(/_bucket$/, ''))
      expect(legend, expr).toMatch(/\{\{instance\}\}/)
    }

    // Prometheus may hold a metrics-only token (made in the console's database) instead of the
    // launch token; it opens /metrics and nothing else, and is refused once revoked.
    const db = c.backend.context.db
    db.prepare(
      "INSERT INTO relay_tokens (name, hash, created_at, scope) VALUES ('prometheus', ?, 1, 'metrics')",
    ).run(hashToken('wdr_console_metrics_only'))
    const scrape = { authorization: 'Bearer wdr_console_metrics_only' }
    expect((await fetch(`${c.url}/metrics`, { headers: scrape })).status).toBe(200)
    expect((await fetch(`${c.url}/api/health`, { headers: scrape })).status).toBe(401)
    db.prepare("UPDATE relay_tokens SET revoked_at = 2 WHERE name = 'prometheus'").run()
    expect((await fetch(`${c.url}/metrics`, { headers: scrape })).status).toBe(401)
  })
})
