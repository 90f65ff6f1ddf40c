import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/ports'
import { runMain } from '../support/cli'
import { useServeProcess } from '../support/serve-process'
import type { ServeProcess } from '../support/serve-process'
import { spawnRelay } from '../support/relay-process'
import type { RelayProcess } from '../support/relay-process'
import { useTempDir } from '../support/temp'
import { waitFor } from '../support/wait'
import { deliver, relaySecret } from '../main/relay/helpers'

/** docs/grafana-dashboard.json against a real Prometheus (Debian's `prometheus`) scraping a real
 * console (`serve --demo`: twelve chains polled) and a real relay (one webhook delivered), both the
 * built bin/watchdesk: every query of every panel, read from the dashboard file itself (so a
 * renamed metric is followed), returns at least one series. */

const repoRoot = join(import.meta.dirname, '..', '..')

interface Panel {
  title?: string
  targets?: { expr?: string }[]
  panels?: Panel[]
}

function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(
    readFileSync(join(repoRoot, 'docs', 'grafana-dashboard.json'), 'utf8'),
  ) as Panel
  const walk = (panel: Panel): { panel: string; expr: string }[] => [
    ...(panel.targets ?? []).flatMap((t) => (t.expr ? [{ panel: panel.title ?? '', expr: t.expr }] : [])),
    ...(panel.panels ?? []).flatMap(walk),
  ]
  return walk(dashboard)
}

/** Grafana's interval variables, as Grafana would fill them for a short range. */
const asPrometheusQuery = (expr: string) =>
  expr.replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '15s').replaceAll('$__range', '5m')

describe('docs/grafana-dashboard.json on a real Prometheus scraping a console and a relay', () => {
  const tempDir = useTempDir('watchdesk-dashboard-', { per: 'file' })
  // The console lives for the whole file: Prometheus scrapes it while every panel is checked.
  const serve = useServeProcess({ per: 'file' })
  const children: ChildProcess[] = []
  let prometheusUrl = ''
  let console_: ServeProcess
  let relay: RelayProcess

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve()
            child.once('exit', () => resolve())
            child.kill('SIGTERM')
          }),
      ),
    )
  })

  async function query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
    const answer = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`)
    const body = (await answer.json()) as { status: string; error?: string; data?: { result: never[] } }
    if (body.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${body.error}`)
    return body.data!.result
  }

  /** Each target's health and last scrape error, for a failure message. */
  async function targetErrors(): Promise<string> {
    const answer = (await (await fetch(`${prometheusUrl}/api/v1/targets`)).json()) as {
      data: { activeTargets: { scrapePool: string; health: string; lastError: string }[] }
    }
    return answer.data.activeTargets.map((t) => `${t.scrapePool} ${t.health} ${t.lastError}`).join('; ')
  }

  beforeAll(async () => {
    // The console: demo data polls all twelve chains; its token is fixed by the environment.
    const consoleDir = tempDir()
    console_ = await serve(['--demo'], { ...process.env, WATCHDESK_DATA_DIR: consoleDir })
    // The relay, with a metrics-scoped token as docs/relay.md tells Prometheus to use.
    const relayDir = tempDir()
    const store = `sqlite:${join(relayDir, 'watchdesk.db')}`
    const spawned = spawnRelay(store, {
      WATCHDESK_DATA_DIR: relayDir,
      WATCHDESK_WEBHOOK_SECRETS: relaySecret,
    })
    children.push(spawned.child)
    relay = await spawned.ready
    const created = await runMain([
      'relay',
      'token',
      'create',
      'prometheus',
      '--scope',
      'metrics',
      '--store',
      store,
    ])
    expect(created.code, created.stderr).toBe(0)
    const relayToken = /\S{20,}/.exec(created.stdout)![0]
    expect(await deliver(relay.webhooks, 'evt_dashboard_1')).toBe(200)

    const target = (url: string) => new URL(url).host
    const config = join(tempDir(), 'prometheus.yml')
    writeFileSync(
      config,
      `global:
  # Loose enough for a loaded machine: a scrape that times out makes every gauge stale.
  scrape_interval: 3s
  scrape_timeout: 3s
scrape_configs:
  - job_name: watchdesk-console
    authorization: { credentials: ${JSON.stringify(console_.token)} }
    static_configs: [{ targets: [${JSON.stringify(target(console_.consoleUrl))}] }]
  - job_name: watchdesk-relay
    authorization: { credentials: ${JSON.stringify(relayToken)} }
    static_configs: [{ targets: [${JSON.stringify(target(relay.sync))}] }]
`,
    )
    const port = await freePort()
    prometheusUrl = `http://127.0.0.1:${port}`
    const prometheus = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${tempDir()}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let log = ''
    prometheus.stderr.on('data', (c: Buffer) => (log += c.toString()))
    children.push(prometheus)
    await waitFor(
      async () => {
        if (prometheus.exitCode !== null) throw new Error(`prometheus exited: ${log}`)
        return (await fetch(`${prometheusUrl}/-/ready`).catch(() => null))?.ok
      },
      'Prometheus to be ready',
      { timeoutMs: 60_000 },
    )
    // Enough scrapes of both, answered, for a rate over them: rate() and increase() need two
    // samples in their range (a third cost one more scrape interval of the demo's polling, about a
    // CPU-second; a panel still waits for its own series below).
    await waitFor(
      async () => {
        const up = await query('count_over_time(up[1m]) >= 2 and up == 1')
        return up.length === 2
      },
      'two good scrapes of the console and the relay',
      { timeoutMs: 90_000, intervalMs: 500 },
    )
  }, 240_000)

  const queries = dashboardQueries()

  it('reads the dashboard’s queries', () => {
    expect(queries.length).toBeGreaterThanOrEqual(15)
  })

  it.each(queries.map((q) => [q.panel, q.expr] as const))(
    'panel "%s": %s returns data',
    async (_, expr) => {
      const result = await waitFor(
        async () => {
          const series = await query(asPrometheusQuery(expr))
          return series.length > 0 ? series : undefined
        },
        `a series for ${expr}`,
        { timeoutMs: 45_000, intervalMs: 500 },
      ).catch(async (error: Error) => {
        throw new Error(`${error.message}; targets: ${await targetErrors()}`)
      })
      expect(result.length).toBeGreaterThan(0)
    },
    60_000,
  )

  it('both the console and the relay are scraped (up 1), each with its own meters', async () => {
    const up = await query('up')
    expect(up.map((s) => [s.metric.job, s.value[1]]).sort()).toEqual([
      ['watchdesk-console', '1'],
      ['watchdesk-relay', '1'],
    ])
    expect(await query('watchdesk_listener_accepted_total{job="watchdesk-relay"} >= 1')).toHaveLength(1)
    expect(
      (await query('watchdesk_chain_poll_errors_total{job="watchdesk-console"}')).length,
    ).toBeGreaterThan(0)
  })
})
