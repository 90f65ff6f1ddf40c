import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { webhooksCommand } from '../../../src/main/cli/main'
import type { CliIo } from '../../../src/main/cli/io'
import type { SecretStore } from '../../../src/main/secrets'
import { callApi, useTestConsole } from '../../support/console'
import { useTestKeychain } from '../../support/keychain'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'
import { occupyPort } from '../../support/ports'
import { useTempDir } from '../../support/temp'
import { selfSignedCert, useTunnel } from '../../support/tunnel'

/** Issue 19: "Connect this console" leaves nothing behind at the service or in the keychain when
 * it fails, registers one endpoint per URL, and keeps the last verified public URL. The console
 * runs in serve mode on SQLite with the real OS keychain; the payments service is the stand-in,
 * whose registered endpoints are counted; tunnels are TLS reverse proxies on loopback. */

const key = 'sk_sandbox_connect_tx_1f2e3d4c'
const liveKey = 'sk_live_connect_tx_9a8b7c6d'
const biz = 'biz_tx'
const events = ['funding.completed']

describe('Connect this console as one transaction', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const standin = usePaymentsStandin()
  const tunnel = useTunnel()
  const keychain = useTestKeychain()
  const closers: (() => void)[] = []
  afterEach(() => {
    for (const close of closers.splice(0)) close()
  })
  // One trusted tunnel certificate for the file (an RSA key is about 0.25 s of openssl's CPU): each
  // test's console trusts it, and the untrusted one is made apart.
  const certDir = mkdtempSync(join(tmpdir(), 'watchdesk-connect-tx-cert-'))
  const caFile = selfSignedCert(certDir).certFile
  afterAll(() => rmSync(certDir, { recursive: true, force: true }))

  /** A gateway in front of the service that loses the answer of every successful create (the
   * service committed it; the client sees 503, on each retry too). */
  async function losingCreates(target: string): Promise<string> {
    const gateway = createServer((req, res) => {
      const upstream = request(
        new URL(req.url ?? '/', target),
        { method: req.method, headers: req.headers },
        (answer) => {
          if (req.method === 'POST' && answer.statusCode === 201) {
            answer.resume()
            res.writeHead(503, { 'content-type': 'application/json' })
            res.end('{"error":{"type":"api_error","message":"gateway lost the answer"}}')
            return
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      req.pipe(upstream)
    })
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', () => r()))
    closers.push(() => (gateway.closeAllConnections(), gateway.close()))
    return `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`
  }

  async function setup(activeKey = key) {
    const s = await standin({
      keys: {
        [key]: { scopes: allScopes, limits: sandboxLimits, businesses: [biz] },
        [liveKey]: { scopes: allScopes, limits: sandboxLimits, businesses: [biz] },
      },
    })
    const dataDir = tempDir()
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ apiBaseUrl: s.url, selectedBusinessId: biz, businesses: [{ id: biz }] }),
    )
    const secrets = keychain()
    const c = await startConsole({ dataDir, secrets, env: { NODE_EXTRA_CA_CERTS: caFile } })
    expect((await callApi(c, 'payments.keys.set', { name: 'main', key: activeKey })).json.ok).toBe(true)
    s.requests.length = 0 // the key's own test when it was stored
    const listener = c.backend.services.webhooks.address().url!
    const connect = async (publicUrl: string) =>
      (await callApi(c, 'payments.webhooks.connect', { publicUrl, events })).json.value
    const publicUrl = () =>
      JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).listener?.publicUrl as string | undefined
    return { s, c, dataDir, certDir, caFile, secrets, listener, connect, publicUrl }
  }

  const webhookSecrets = async (secrets: SecretStore) => {
    const listed = await secrets.list()
    if (!listed.ok) throw new Error(listed.error.message)
    return listed.value.filter((e) => e.account.startsWith('webhook-secret:')).map((e) => e.account)
  }

  it('four failed attempts (self-signed certificate, dead port, wrong path, a proxy that drops the signature) leave no endpoint at the service and no secret in the keychain, each naming its own cause', async () => {
    const { s, certDir, secrets, listener, connect, publicUrl } = await setup()
    const untrusted = await tunnel(tempDir(), listener)
    const dead = await occupyPort()
    dead.close()
    const trusted = await tunnel(certDir, listener)
    const stripping = await tunnel(certDir, listener, { dropHeaders: ['x-service-signature'] })

    const tls = await connect(untrusted.url)
    expect(tls.test.outcome).toBe('tls')
    expect(tls.test.message).toContain('TLS handshake')
    expect(tls.test.arrivedAt).toBeNull()
    expect(tls.test.message).toContain('Nothing was registered')

    const refusedPort = await connect(`https://127.0.0.1:${dead.port}/webhooks`)
    expect(refusedPort.test.outcome).toBe('connection')
    expect(refusedPort.test.message).toContain('Nothing accepted a connection')

    const wrongPath = await connect(`${trusted.url}/hooks`)
    expect(wrongPath.test.outcome).toBe('path')
    expect(wrongPath.test.message).toContain('The path /hooks does not reach /webhooks')
    expect(wrongPath.test.message).not.toContain('secret')
    // The check went out before any registration: nothing was POSTed to the service.
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(0)

    // This one passes the check, is registered, and fails the signed test: it is undone.
    const unsigned = await connect(stripping.url)
    expect(unsigned.test.outcome).toBe('refused')
    expect(unsigned.test.message).toContain('X-Service-Signature')
    expect(unsigned.endpoint).toBeNull()
    expect(unsigned.cleanup).toMatch(
      /^The endpoint wh_[0-9a-f]+ registered for this attempt was deleted at the service and its secret removed from the keychain/,
    )
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(1)
    expect(s.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1)

    expect(s.endpoints.size).toBe(0)
    expect(await webhookSecrets(secrets)).toEqual([])
    expect(publicUrl()).toBeUndefined()
  })

  it('a success after a failure registers exactly one endpoint, a second Connect with the same URL reuses it, and a later failure keeps the verified public URL', async () => {
    const { s, certDir, secrets, listener, connect, publicUrl } = await setup()
    const trusted = await tunnel(certDir, listener)

    expect((await connect(`${trusted.url}/hooks`)).test.outcome).toBe('path')
    const first = await connect(trusted.url)
    expect(first.test.outcome, first.test.message).toBe('arrived')
    expect(first.reused).toBe(false)
    expect(s.endpoints.size).toBe(1)
    expect(publicUrl()).toBe(`${trusted.url}/webhooks`)

    const again = await connect(`${trusted.url}/webhooks`)
    expect(again.test.outcome, again.test.message).toBe('arrived')
    expect(again.reused).toBe(true)
    expect(again.endpoint.id).toBe(first.endpoint.id)
    expect(again.secretShownOnce).toBeNull()
    expect(s.endpoints.size).toBe(1)
    expect(await webhookSecrets(secrets)).toEqual([`webhook-secret:${first.endpoint.id}`])

    const failed = await connect(`${trusted.url}/elsewhere`)
    expect(failed.test.outcome).toBe('path')
    expect(failed.publicUrl).toBe(`${trusted.url}/webhooks`)
    expect(publicUrl()).toBe(`${trusted.url}/webhooks`)
    expect(s.endpoints.size).toBe(1)
  })

  it('Clean up endpoints proposes earlier URLs of this console and URLs nothing answers at, never another receiver that answers, and deletes the chosen ones with their secrets (API and CLI)', async () => {
    const { s, c, dataDir, certDir, caFile, secrets, listener, connect } = await setup()
    const earlier = await tunnel(certDir, listener)
    const current = await tunnel(certDir, listener)
    const app = createServer((_req, res) => res.writeHead(200).end('ok'))
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', () => r()))
    closers.push(() => (app.closeAllConnections(), app.close()))
    const appTunnel = await tunnel(certDir, `http://127.0.0.1:${(app.address() as AddressInfo).port}`)

    const old = (await connect(earlier.url)).endpoint.id
    const now = (await connect(current.url)).endpoint.id
    const made = async (url: string) =>
      (await callApi(c, 'payments.webhooks.create', { url, events, description: 'by hand' })).json.value
        .endpoint.id as string
    const gone = await made('https://watchdesk-test.invalid/hooks')
    const theirs = await made(`${appTunnel.url}/app`)
    expect(s.endpoints.size).toBe(4)

    const stale = (await callApi(c, 'payments.webhooks.stale')).json.value
    expect(stale.total).toBe(4)
    const proposed = Object.fromEntries(
      stale.stale.map((x: { endpoint: { id: string }; reason: string }) => [x.endpoint.id, x.reason]),
    )
    expect(proposed).toEqual({ [old]: 'earlier_url', [gone]: 'unreachable' })

    const cleaned = (await callApi(c, 'payments.webhooks.cleanup', { ids: [gone] })).json.value
    expect(cleaned).toEqual({ deleted: [{ id: gone, secretRemoved: true }], failed: [] })

    // The command line proposes the same (from the same config) and deletes with --all.
    const lines: string[] = []
    const io: CliIo = {
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      env: { WATCHDESK_DATA_DIR: dataDir, NODE_EXTRA_CA_CERTS: caFile },
    }
    expect(await webhooksCommand(['cleanup'], io, { secrets })).toBe(0)
    expect(lines.join('\n')).toMatch(new RegExp(`${old}\\s+earlier_url`))
    expect(await webhooksCommand(['cleanup', '--all'], io, { secrets })).toBe(0)
    expect(lines.at(-1)).toBe(`deleted ${old} and removed its secret from the keychain`)

    expect([...s.endpoints.keys()].sort()).toEqual([now, theirs].sort())
    expect((await webhookSecrets(secrets)).sort()).toEqual(
      [`webhook-secret:${now}`, `webhook-secret:${theirs}`].sort(),
    )
  })

  it('a create the service committed but whose answer was lost is deleted again: nothing is left behind', async () => {
    const { s, c, certDir, listener, connect } = await setup()
    const gateway = await losingCreates(s.url)
    await callApi(c, 'settings.update', { set: { apiBaseUrl: gateway } })
    const trusted = await tunnel(certDir, listener)
    const failed = await callApi(c, 'payments.webhooks.connect', { publicUrl: trusted.url, events })
    expect(failed.json.ok).toBe(false)
    expect(failed.json.error.message).toMatch(
      /The endpoint wh_[0-9a-f]+ registered for this attempt was deleted at the service: nothing is left behind\.$/,
    )
    expect(s.endpoints.size).toBe(0)
    // Then with the service answering again: one endpoint.
    await callApi(c, 'settings.update', { set: { apiBaseUrl: s.url } })
    expect((await connect(trusted.url)).test.outcome).toBe('arrived')
    expect(s.endpoints.size).toBe(1)
  })

  it('Clean up with a live key deletes nothing until the operator confirmed it', async () => {
    const { s, c } = await setup(liveKey)
    const created = await callApi(c, 'payments.webhooks.create', {
      url: 'https://watchdesk-test.invalid/old',
      events,
      confirmLive: true,
    })
    const id = created.json.value.endpoint.id
    const stale = (await callApi(c, 'payments.webhooks.stale')).json.value.stale
    expect(stale.map((x: { endpoint: { id: string } }) => x.endpoint.id)).toEqual([id])
    const refused = await callApi(c, 'payments.webhooks.cleanup', { ids: [id] })
    expect(refused.json.error.code).toBe('forbidden')
    expect(refused.json.error.message).toContain('LIVE')
    expect(s.endpoints.has(id)).toBe(true)
    const confirmed = await callApi(c, 'payments.webhooks.cleanup', { ids: [id], confirmLive: true })
    expect(confirmed.json.value.deleted).toEqual([{ id, secretRemoved: true }])
    expect(s.endpoints.size).toBe(0)
  })
})
