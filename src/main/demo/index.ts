import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chainRegistry } from '../../shared/chains/registry'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { deepMerge } from '../config'
import type { Logger } from '../log'
import { accounts, createMemoryStore } from '../secrets'
import type { SecretStore } from '../secrets'
import { sendTestEvent } from '../webhooks'
import { startAnvil } from './anvil'
import type { AnvilNode } from './anvil'
import { startGateway } from './gateway'
import { startPaymentsStandin } from './payments-standin'
import type { Standin } from './payments-standin'
import type { Gateway } from './gateway'

/** `watchdesk serve --demo`: twelve anvil nodes with the networks' chain ids and block times, a
 * local gateway in the shape of the node-access service, a local stand-in of the payments API in
 * sandbox mode (wallets, webhook endpoints), an in-memory keychain with a generated project uid,
 * sandbox key and webhook secret, and signed sample events for the listener. No credentials. */

export interface Demo {
  dataDir: string
  /** The overlay config (the user's --config, if any, with the demo's chains over it). */
  configFile: string
  secrets: SecretStore
  nodes: AnvilNode[]
  /** Sends signed sample events to the listener, now and then every `everyMs`. */
  sendEvents(listenerUrl: string, log: Logger, everyMs?: number): Promise<void>
  /** Stops exactly what the demo started: its nodes (by their pids), the gateway, the timer. */
  stop(): Promise<void>
}

export interface DemoOptions {
  dataDir?: string
  configFile?: string
  /** A subset of service ids (tests); all twelve by default. */
  serviceIds?: number[]
}

export const demoEndpointId = 'demo'

const demoBusiness = { id: 'biz_demo', name: 'Demo Ltd' }

const demoWallets = [
  {
    id: 'wal_demo_usd',
    currency: 'usd',
    available: 125000.5,
    pending: 300,
    status: 'active',
    created_at: '2026-01-05T09:14:00Z',
  },
  {
    id: 'wal_demo_usdc',
    currency: 'usdc',
    available: 98231.12,
    pending: 0,
    status: 'active',
    created_at: '2026-01-06T11:02:00Z',
  },
  {
    id: 'wal_demo_eur',
    currency: 'eur',
    available: 0,
    pending: 12.5,
    status: 'frozen',
    created_at: '2026-02-01T16:40:00Z',
  },
]

/** Real block times, but no faster than 1 s: twelve nodes share the machine with the console. */
export const demoBlockTimeSeconds = (blockTimeMs: number) => Math.max(1, Math.round(blockTimeMs / 100) / 10)

const sampleTypes = [
  'funding.initiated',
  'funding.completed',
  'payout.initiated',
  'payout.completed',
  'card.created',
  'card.transaction.completed',
  'business.verification.approved',
  'report.ready',
]

export async function startDemo(options: DemoOptions = {}): Promise<Result<Demo>> {
  const chains = chainRegistry.filter((c) => !options.serviceIds || options.serviceIds.includes(c.serviceId))
  const started = await Promise.all(
    chains.map((c) =>
      startAnvil({ chainId: c.serviceId, blockTimeSeconds: demoBlockTimeSeconds(c.blockTimeMs) }),
    ),
  )
  const nodes = started.flatMap((s) => (s.ok ? [s.value] : []))
  const failed = started.find((s) => !s.ok)
  if (failed && !failed.ok) {
    await Promise.all(nodes.map((n) => n.stop()))
    return err(failed.error.code, `The demo could not start its local nodes: ${failed.error.message}`)
  }
  const projectUid = `demo_${randomBytes(12).toString('hex')}`
  const webhookSecret = `whsec_${randomBytes(24).toString('base64url')}`
  const apiKey = `sk_sandbox_demo_${randomBytes(12).toString('hex')}`
  let gateway: Gateway
  let payments: Standin
  try {
    gateway = await startGateway(new Map(chains.map((c, i) => [c.defaultSlug, nodes[i]!.url])), projectUid)
    payments = await startPaymentsStandin({
      keys: {
        [apiKey]: {
          scopes: ['wallets:read', 'webhooks:read', 'webhooks:write'],
          limits: { perMinute: 100, perSecond: 20 },
          businesses: [demoBusiness.id],
        },
      },
      wallets: { [demoBusiness.id]: { object: 'list', data: demoWallets } },
    })
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()))
    return err('unavailable', `The demo gateway could not listen on loopback: ${(error as Error).message}`)
  }
  // The endpoint the demo's sample events are signed for, as the stand-in lists it.
  payments.endpoints.set(demoEndpointId, {
    id: demoEndpointId,
    url: 'https://demo.watchdesk.invalid/webhooks',
    events: [...sampleTypes],
    description: 'demo: sample events from this machine',
    status: 'active',
    secret: webhookSecret,
    created_at: new Date().toISOString(),
    business: demoBusiness.id,
  })
  const tempDir = mkdtempSync(join(tmpdir(), 'watchdesk-demo-'))
  const userConfig = options.configFile ? readUserConfig(options.configFile) : ok({})
  if (!userConfig.ok) {
    await Promise.all([gateway.close(), payments.close(), ...nodes.map((n) => n.stop())])
    rmSync(tempDir, { recursive: true, force: true })
    return userConfig
  }
  const chainsConfig = Object.fromEntries(
    chainRegistry.map((c) => [String(c.serviceId), { slug: c.defaultSlug, enabled: chains.includes(c) }]),
  )
  const configFile = join(tempDir, 'demo-config.json')
  writeFileSync(
    configFile,
    JSON.stringify(
      deepMerge(userConfig.value, {
        rpcBaseUrl: gateway.url,
        apiBaseUrl: payments.url,
        apiKeyName: 'demo',
        businesses: [demoBusiness],
        selectedBusinessId: demoBusiness.id,
        pollIntervalMs: 2000,
        chains: chainsConfig,
      }),
      null,
      2,
    ),
  )
  const secrets = createMemoryStore({
    [accounts.projectUid]: projectUid,
    [accounts.webhookSecret(demoEndpointId)]: webhookSecret,
    [accounts.apiKey('demo')]: apiKey,
  })
  let timer: NodeJS.Timeout | null = null
  let sent = 0

  const sendOne = async (listenerUrl: string, log: Logger) => {
    const type = sampleTypes[sent++ % sampleTypes.length]!
    const result = await sendTestEvent({
      url: `${listenerUrl}/webhooks/${demoEndpointId}`,
      secret: webhookSecret,
      type,
    })
    if (!result.ok) log.warn('demo event not delivered', { type, error: result.error.message })
    else if (result.value.status !== 200)
      log.warn('demo event refused', { type, status: result.value.status, answer: result.value.answer })
  }

  return ok({
    dataDir: options.dataDir ? resolve(options.dataDir) : join(tempDir, 'data'),
    configFile,
    secrets,
    nodes,
    async sendEvents(listenerUrl, log, everyMs = 15_000) {
      for (let i = 0; i < sampleTypes.length; i++) await sendOne(listenerUrl, log)
      timer = setInterval(() => void sendOne(listenerUrl, log), everyMs)
    },
    async stop() {
      if (timer) clearInterval(timer)
      await gateway.close()
      await payments.close()
      await Promise.all(nodes.map((n) => n.stop()))
      rmSync(tempDir, { recursive: true, force: true })
    },
  })
}

function readUserConfig(file: string): Result<Record<string, unknown>> {
  const path = resolve(file)
  if (!existsSync(path))
    return err('not_found', `The config file ${path} does not exist. Check the path given to --config.`)
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return ok(value as Record<string, unknown>)
  } catch {
    // reported below
  }
  return err('bad_request', `${path} must hold a JSON object of config keys.`)
}

/** The demo's secrets as `serve` would see them: the demo's own (project uid, sandbox key, webhook
 * secret) in memory first, then this host's keychain with the environment over it, so
 * WATCHDESK_WEBHOOK_SECRETS signs and verifies as in `serve`, an alert channel stored with
 * `watchdesk alerts channel set` is found, and the keychain's state is the one `doctor` reports.
 * Writes stay in memory: the demo never changes the keychain. */
export function demoSecrets(demo: SecretStore, host: SecretStore): SecretStore {
  return {
    async get(account) {
      const own = await demo.get(account)
      if (own.ok && own.value !== null) return own
      const fromHost = await host.get(account)
      return fromHost.ok ? fromHost : own
    },
    set: (account, secret) => demo.set(account, secret),
    delete: (account) => demo.delete(account),
    async list() {
      const own = await demo.list()
      const fromHost = await host.list()
      if (!own.ok || !fromHost.ok) return own
      const mine = new Set(own.value.map((e) => e.account))
      return ok([...own.value, ...fromHost.value.filter((e) => !mine.has(e.account))])
    },
    status: () => host.status(),
  }
}
