import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { callApi, useTestConsole } from '../../support/console'
import { hex, jsonRpcNode, useRpcStandin } from '../../support/rpc-standin'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

/** The chains capability through the real API of serve mode (HTTP, SQLite on disk). */

const uid = 'prj_7f3a9c2e4b1d8a6f'
const nowHex = () => hex(Math.floor(Date.now() / 1000))

const polygonNode = (extra: Record<string, unknown> = {}) =>
  jsonRpcNode({
    eth_blockNumber: hex(5000),
    eth_getBlockByNumber: () => ({ number: hex(5000), timestamp: nowHex() }),
    web3_clientVersion: 'bor/v2.0.1',
    net_version: '137',
    eth_chainId: hex(137),
    ...extra,
  })

describe('chains API', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const standin = useRpcStandin()

  async function consoleOn(nodeUrl: string, chains: Record<string, unknown> = {}) {
    const dir = tempDir()
    const configFile = join(dir, 'overlay.json')
    writeFileSync(configFile, JSON.stringify({ rpcBaseUrl: nodeUrl, pollIntervalMs: 500, chains }))
    const c = await startConsole({
      dataDir: dir,
      configFile,
      secrets: createMemoryStore({ 'project-uid': uid }),
    })
    return { c, dir }
  }

  it('polls {rpcBaseUrl}/<slug>/<project uid> and shows the URL with the uid masked, never in full', async () => {
    const node = await standin((body, path) =>
      path === `/polygon/${uid}` ? polygonNode()(body, path) : { status: 404, body: 'no such project' },
    )
    const { c, dir } = await consoleOn(node.url, { '56': { enabled: false } })
    const json = await waitFor(async () => {
      const { json } = await callApi(c, 'chains.list')
      return json.value.chains.every((x: any) => x.status !== 'checking') ? json : undefined
    }, 'a first poll of every chain')
    const polygon = json.value.chains.find((x: any) => x.serviceId === 137)
    expect(polygon.status).toBe('healthy')
    expect(polygon.endpoint).toBe(`${node.url}/polygon/…8a6f`)
    expect(polygon.head).toBe(5000)
    expect(polygon.clientVersion).toBe('bor/v2.0.1')
    // The other chains reach the stand-in on their own slugs and are told "no such project".
    const ethereum = json.value.chains.find((x: any) => x.serviceId === 1)
    // One failed poll is not an outage yet: failing (1/3) until confirmed.
    expect(ethereum.status).toBe('failing')
    expect(ethereum.confirming).toEqual({ toward: 'down', count: 1, needed: 3 })
    expect(ethereum.reason).toMatch(/HTTP 404/)
    expect(json.value.chains.find((x: any) => x.serviceId === 56).status).toBe('not_configured')
    expect(node.paths).toContain(`/ethereum/${uid}`)
    // The uid is in no answer, and not in the database.
    expect(JSON.stringify(json)).not.toContain(uid)
    const points = await waitFor(async () => {
      const history = await callApi(c, 'chains.history', { serviceId: 137 })
      return history.json.value.points.length > 0 ? history.json.value.points : undefined
    }, 'samples in the history')
    expect(points[0]).toMatchObject({ ok: true, lagBlocks: 0 })
    await c.close()
    for (const file of ['watchdesk.db', 'watchdesk.db-wal']) {
      let bytes = ''
      try {
        bytes = readFileSync(join(dir, file)).toString('latin1')
      } catch {
        continue
      }
      expect(bytes).not.toContain(uid)
    }
  })

  it('returns every node URL in settings.get masked as the Chains view shows it, and the project uid nowhere', async () => {
    const node = await standin(polygonNode())
    const { c } = await consoleOn(`${node.url}/${uid}`, {
      '137': { url: `${node.url}/polygon/${uid}`, referenceUrl: `${node.url}/ref?apikey=${uid}` },
    })
    const { json } = await callApi(c, 'settings.get')
    expect(json.value.config.chains['137']).toEqual({
      url: `${node.url}/…8a6f`,
      referenceUrl: `${node.url}/…8a6f`,
    })
    // Written into the base URL too, the uid is masked where it stands.
    expect(json.value.config.rpcBaseUrl).toBe(`${node.url}/…8a6f`)
    expect(JSON.stringify(json)).not.toContain(uid)
  })

  it('masks every reference URL and header value in settings.get', async () => {
    const node = await standin(polygonNode())
    const { c } = await consoleOn(node.url, {
      '137': {
        references: [
          { name: 'keyed', url: `${node.url}/v2/${uid}`, headers: { 'x-api-key': 'key_0123456789abcd' } },
        ],
      },
    })
    const { json } = await callApi(c, 'settings.get')
    expect(json.value.config.chains['137'].references).toEqual([
      { name: 'keyed', url: `${node.url}/…8a6f`, headers: { 'x-api-key': '…' } },
    ])
    expect(JSON.stringify(json)).not.toContain('key_0123456789abcd')
  })

  it('adds, tests and removes a reference through Settings, moving the older referenceUrl into the list', async () => {
    const node = await standin(polygonNode())
    const wrong = await standin(polygonNode({ eth_chainId: hex(56) }))
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ rpcBaseUrl: node.url, chains: { '137': { referenceUrl: `${node.url}/old` } } }),
    )
    const c = await startConsole({ dataDir: dir, secrets: createMemoryStore({ 'project-uid': uid }) })
    const added = await callApi(c, 'settings.references.add', {
      serviceId: 137,
      name: 'second',
      url: node.url,
    })
    expect(added.json.value).toMatchObject({ saved: true, problems: [] })
    const saved = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).chains['137']
    expect(saved()).toEqual({
      references: [
        { name: 'reference', url: `${node.url}/old` },
        { name: 'second', url: node.url },
      ],
    })
    // A name twice is refused in the schema's words, and nothing is written.
    const twice = await callApi(c, 'settings.references.add', {
      serviceId: 137,
      name: 'second',
      url: node.url,
    })
    expect(twice.json.value.saved).toBe(false)
    expect(twice.json.value.problems[0].message).toBe('reference names must differ')

    const tested = await callApi(c, 'settings.test.reference', { serviceId: 137, name: 'second' })
    expect(tested.json.value).toMatchObject({ verdict: 'ok', chainId: 137, head: 5000, expectedChainId: 137 })
    expect(tested.json.value.latencyMs).toBeGreaterThan(0)
    const other = await callApi(c, 'settings.test.reference', { serviceId: 137, url: wrong.url })
    expect(other.json.value).toMatchObject({ verdict: 'wrong_chain', chainId: 56 })
    expect(other.json.value.detail).toBe(
      'eth_chainId answers 56, not 137: another network. It would be excluded.',
    )

    await callApi(c, 'settings.references.remove', { serviceId: 137, name: 'reference' })
    expect(saved()).toEqual({ references: [{ name: 'second', url: node.url }] })
  })

  it('says which chains are not configured when there is no project uid', async () => {
    const dir = tempDir()
    const configFile = join(dir, 'overlay.json')
    writeFileSync(configFile, JSON.stringify({ rpcBaseUrl: 'http://127.0.0.1:9' }))
    const c = await startConsole({ dataDir: dir, configFile })
    const { json } = await callApi(c, 'chains.list')
    expect(json.value.chains).toHaveLength(12)
    for (const chain of json.value.chains) {
      expect(chain.status).toBe('not_configured')
      expect(chain.reason).toMatch(/WATCHDESK_PROJECT_UID/)
    }
  })

  it('sends a console request and explains an eth_estimateGas refusal in words', async () => {
    const node = await standin(
      polygonNode({
        eth_estimateGas: {
          error: {
            code: -32000,
            message:
              'insufficient funds for gas * price + value: address 0x1111111111111111111111111111111111111111 have 0 want 1000',
          },
        },
      }),
    )
    const { c } = await consoleOn(node.url)
    const params = [
      {
        from: '0x1111111111111111111111111111111111111111',
        to: '0x2222222222222222222222222222222222222222',
        value: '0x3e8',
      },
    ]
    const { json } = await callApi(c, 'chains.rpc', { serviceId: 137, method: 'eth_estimateGas', params })
    expect(json.ok).toBe(true)
    expect(JSON.parse(json.value.request)).toMatchObject({
      jsonrpc: '2.0',
      method: 'eth_estimateGas',
      params,
    })
    expect(JSON.parse(json.value.response)).toMatchObject({ error: { code: -32000 } })
    expect(json.value.error).toMatchObject({ kind: 'rpc', code: -32000 })
    expect(json.value.explanation).toMatch(/balance does not cover gas × price \+ value/)
    expect(json.value.elapsedMs).toBeGreaterThan(0)
    expect(json.value.endpoint).not.toContain(uid)

    const version = await callApi(c, 'chains.rpc', { serviceId: 137, method: 'web3_clientVersion' })
    expect(JSON.parse(version.json.value.response).result).toBe('bor/v2.0.1')
    expect(version.json.value.explanation).toBeNull()

    const bad = await callApi(c, 'chains.rpc', {
      serviceId: 137,
      method: 'eth_estimateGas',
      params: [{ from: '0x12', to: '0x34', value: '7' }],
    })
    expect(bad.json).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    expect(bad.json.error.message).toMatch(/40 hex digits/)
    const other = await callApi(c, 'chains.rpc', { serviceId: 137, method: 'eth_sendRawTransaction' })
    expect(other.json.ok).toBe(false)
  })

  it('restarts the poller when the config changes (a new slug is polled at once)', async () => {
    const node = await standin((body, path) =>
      path.startsWith('/matic/') ? polygonNode()(body, path) : { status: 404, body: 'unknown slug' },
    )
    const { c } = await consoleOn(node.url)
    await waitFor(async () => {
      const { json } = await callApi(c, 'chains.list')
      return json.value.chains.find((x: any) => x.serviceId === 137 && x.status === 'failing') ?? undefined
    }, 'polygon failing on the default slug')
    const saved = await c.backend.context.saveConfig({ chains: { '137': { slug: 'matic' } } })
    expect(saved.ok).toBe(true)
    const healthy = await waitFor(async () => {
      const { json } = await callApi(c, 'chains.list')
      return json.value.chains.find((x: any) => x.serviceId === 137 && x.status === 'healthy')
    }, 'polygon healthy on the new slug')
    expect(healthy.slug).toBe('matic')
  })
})
