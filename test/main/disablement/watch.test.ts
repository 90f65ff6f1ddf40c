import { createHmac } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startBackend } from '../../../src/main/backend'
import type { Backend } from '../../../src/main/backend'
import { databaseFileName, openDatabase } from '../../../src/main/db'
import { ladderMs } from '../../../src/main/disablement'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import type { ManualClock } from '../../support/clock'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'
import { freePort } from '../../support/ports'
import { useTempDir } from '../../support/temp'
import { selfSignedCert, useTunnel } from '../../support/tunnel'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'
import { post } from '../webhooks/helpers'

/** Issue 32.4: a console whose listener is reached through a tunnel (a TLS proxy on loopback) and
 * whose endpoint is registered at the payments stand-in; alerts go to a webhook channel recorded
 * by a local server. The watch's and the alert rules' clock is moved by hand: the ladder is 26 h. */

const key = 'sk_sandbox_disable_5e1f0a2b9c7d'
const biz = 'biz_acme'
const endpoint = 'wh_7f3a9c2e1b4d6a80'
const secret = 'whsec_disable_test_4c3e8c1f0e2a9b7d'
const hour = 3_600_000

describe('the endpoint-disablement watch', () => {
  const tempDir = useTempDir('watchdesk-disable-')
  const standin = usePaymentsStandin()
  const tunnel = useTunnel()
  const recorder = useRecorder()
  const backends: Backend[] = []
  afterEach(async () => {
    for (const b of backends.splice(0)) await b.close()
  })

  async function setup(endpointStatus = 'active') {
    const s = await standin({
      keys: { [key]: { scopes: allScopes, limits: sandboxLimits, businesses: [biz] } },
    })
    s.endpoints.set(endpoint, {
      id: endpoint,
      url: 'https://example.invalid/webhooks',
      events: ['*'],
      status: endpointStatus,
      secret,
      created_at: '2026-03-01T10:00:00Z',
      business: biz,
    })
    const channel = await recorder()
    const dataDir = tempDir()
    const port = await freePort()
    const proxy = await tunnel(dataDir, `http://127.0.0.1:${port}`)
    const config = {
      apiBaseUrl: s.url,
      selectedBusinessId: biz,
      businesses: [{ id: biz }],
      listener: { publicUrl: `${proxy.url}/webhooks` },
      alerts: { channels: { hook: { type: 'webhook' } } },
    }
    writeFileSync(join(dataDir, 'overlay.json'), JSON.stringify(config))
    const start = async (clock: ManualClock) => {
      const backend = unwrap(
        await startBackend({
          dataDir,
          configFile: join(dataDir, 'overlay.json'),
          shell: 'serve',
          env: { NODE_EXTRA_CA_CERTS: selfSignedCert(dataDir).certFile },
          log: silentLogger,
          listenerPort: port,
          secrets: createMemoryStore({
            'api-key:main': key,
            [`webhook-secret:${endpoint}`]: secret,
            'alert-channel:hook': channel.url,
          }),
          clock,
        }),
      )
      backends.push(backend)
      return backend
    }
    // The engine's hourly reminders of an open incident (alerts.repeatMinutes) are left out.
    const endpointAlerts = () =>
      channel.received
        .filter((r) => String(r.json?.rule).startsWith('endpoint.') && r.json.kind !== 'reminder')
        .map((r) => r.json)
    return { s, channel, dataDir, port, proxy, start, endpointAlerts }
  }

  /** Moves the clock to `t` and lets the watch look there, then waits for the alerts it raised. */
  async function lookAt(backend: Backend, clock: ManualClock, t: number) {
    clock.advance(t - clock.now())
    await backend.services.disablement.checkNow()
    await backend.services.alerts.idle()
  }

  it(
    'warns before the deadline during a public-URL outage, then alerts once that deliveries were marked failed, with the commands and the endpoint’s status',
    { timeout: 120_000 },
    async () => {
      const { proxy, start, endpointAlerts } = await setup()
      const clock = manualClock()
      const backend = await start(clock)
      const { publicUrl, disablement } = backend.services
      await waitFor(
        async () => (await publicUrl.checkNow()).state === 'reachable',
        'the public URL reachable',
      )
      expect((await disablement.checkNow()).endpoints).toEqual([
        expect.objectContaining({ endpoint, state: 'clear', downSince: null, deadline: null }),
      ])

      await proxy.close()
      await waitFor(
        async () => (await publicUrl.checkNow()).state === 'unreachable',
        'the public URL unreachable',
      )
      const since = clock.now()
      const during = await disablement.checkNow()
      expect(during.outage).toMatchObject({ since, cause: 'public_url' })
      expect(during.endpoints[0]).toMatchObject({
        state: 'clear',
        downSince: since,
        deadline: since + ladderMs,
      })

      // A minute before the lead: nothing yet.
      await lookAt(backend, clock, since + ladderMs - 2 * hour - 60_000)
      expect(endpointAlerts()).toEqual([])
      expect(disablement.status().endpoints[0]!.state).toBe('clear')

      await lookAt(backend, clock, since + ladderMs - 2 * hour)
      expect(endpointAlerts()).toEqual([
        expect.objectContaining({ rule: 'endpoint.disable_risk', kind: 'fired', severity: 'warning' }),
      ])
      expect(endpointAlerts()[0].title).toMatch(
        new RegExp(`^Endpoint ${endpoint}: deliveries marked failed at `),
      )
      expect(endpointAlerts()[0].body).toContain('in 2 h')
      expect(endpointAlerts()[0].body).toContain('public URL check')
      expect(disablement.status().endpoints[0]!.state).toBe('at_risk')

      // Later looks before the deadline add nothing.
      await lookAt(backend, clock, since + ladderMs - hour)
      expect(endpointAlerts()).toHaveLength(1)

      await lookAt(backend, clock, since + ladderMs)
      const alerts = endpointAlerts()
      expect(alerts.map((a) => [a.rule, a.kind, a.severity])).toEqual([
        ['endpoint.disable_risk', 'fired', 'warning'],
        ['endpoint.deliveries_failed', 'escalated', 'critical'],
      ])
      expect(alerts[1].body).toContain(`the service may have disabled endpoint ${endpoint}`)
      expect(alerts[1].body).toContain('`watchdesk webhooks list`')
      expect(alerts[1].body).toContain('retry the failed ones from its dashboard')
      expect(alerts[1].body).toContain(`The payments API lists ${endpoint} as active`)
      expect(disablement.status().endpoints[0]).toMatchObject({ state: 'failed', apiStatus: 'active' })

      // Still down an hour later: no second alert.
      await lookAt(backend, clock, since + ladderMs + hour)
      expect(endpointAlerts()).toHaveLength(2)
      const metrics = await backend.metrics()
      expect(metrics).toContain(
        `watchdesk_endpoint_disablement_state{endpoint="${endpoint}",state="failed"} 1`,
      )
      expect(metrics).toContain(
        `watchdesk_endpoint_disablement_state{endpoint="${endpoint}",state="at_risk"} 0`,
      )
      expect(metrics).toContain('watchdesk_endpoint_disable_warnings_total 1')
      expect(metrics).toContain('watchdesk_endpoint_deliveries_failed_total 1')
    },
  )

  it(
    'after an outage longer than the ladder (the console was not running), alerts once that deliveries were marked failed, with the API’s "disabled"; deliveries arriving again close it for good',
    { timeout: 120_000 },
    async () => {
      const { start, endpointAlerts, dataDir, port } = await setup('disabled')
      // The console's earlier run stopped 30 h ago: longer than the ladder's 26 h 36 min.
      const now = Date.now()
      const db = unwrap(openDatabase(join(dataDir, databaseFileName)))
      db.prepare('INSERT INTO listener_runs (started_at, alive_at, stopped_at) VALUES (?, ?, ?)').run(
        now - 40 * hour,
        now - 30 * hour,
        now - 30 * hour,
      )
      db.close()
      const clock = manualClock()
      const first = await start(clock)
      await waitFor(
        async () => (await first.services.publicUrl.checkNow()).state === 'reachable',
        'the public URL reachable',
      )
      await lookAt(first, clock, clock.now() + 30_000)
      const alerts = endpointAlerts()
      expect(alerts.map((a) => [a.rule, a.kind, a.severity, a.title])).toEqual([
        [
          'endpoint.deliveries_failed',
          'fired',
          'critical',
          `Endpoint ${endpoint}: deliveries marked failed, the endpoint may be disabled`,
        ],
      ])
      expect(alerts[0].body).toMatch(/^Deliveries first sent between \d{4}-\d\d-\d\d \d\d:\d\d UTC and /)
      expect(alerts[0].body).toContain(
        `; the service may have disabled endpoint ${endpoint} — check with \`watchdesk webhooks list\` and retry the failed ones from its dashboard.`,
      )
      expect(alerts[0].body).toContain(`The payments API lists ${endpoint} as "disabled"`)
      const status = first.services.disablement.status().endpoints[0]!
      expect(status).toMatchObject({ state: 'failed', failedFrom: now - 30 * hour, apiStatus: 'disabled' })
      expect(status.failedBefore! + ladderMs).toBeGreaterThanOrEqual(now)

      // The operator enabled it again: a delivery arrives, and the next look closes the incident.
      const body = JSON.stringify({
        id: 'evt_back_1',
        type: 'funding.completed',
        created_at: new Date().toISOString(),
        data: {},
      })
      expect((await post(`http://127.0.0.1:${port}/webhooks`, body, signed(body))).status).toBe(200)
      await lookAt(first, clock, clock.now() + 30_000)
      expect(endpointAlerts().map((a) => [a.rule, a.kind])).toEqual([
        ['endpoint.deliveries_failed', 'fired'],
        ['endpoint.deliveries_failed', 'closed'],
      ])
      expect(endpointAlerts()[1].body).toContain('deliveries arrive again')

      // A restart does not raise the settled failure again.
      await first.close()
      backends.splice(backends.indexOf(first), 1)
      const again = manualClock()
      const second = await start(again)
      await lookAt(second, again, again.now() + 30_000)
      expect(second.services.disablement.status().endpoints[0]!.state).toBe('clear')
      expect(endpointAlerts()).toHaveLength(2)
    },
  )
})

const signed = (body: string) => ({
  'x-service-signature': createHmac('sha256', secret).update(body).digest('hex'),
})
