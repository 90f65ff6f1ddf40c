import { describe, expect, it } from 'vitest'
import { pollerFor, resolveTargets } from '../../../src/main/chains'
import { maskUrl } from '../../../src/shared/mask'
import { Config } from '../../../src/shared/config'
import { useRpcStandin } from '../../support/rpc-standin'

const uid = 'prj_0123456789secret'

describe('chain targets', () => {
  it('builds {rpcBaseUrl}/<slug>/<uid> and shows it only with the uid masked', () => {
    const targets = resolveTargets(
      Config.parse({ rpcBaseUrl: 'https://rpc.example/', chains: { '56': { slug: 'bnb' } } }),
      uid,
    )
    const bsc = targets.find((t) => t.info.serviceId === 56)!
    expect(bsc.url).toBe(`https://rpc.example/bnb/${uid}`)
    expect(bsc.endpoint).toBe('https://rpc.example/bnb/…cret')
    expect(targets.find((t) => t.info.serviceId === 1)!.url).toBe(`https://rpc.example/ethereum/${uid}`)
    for (const t of targets) expect(t.endpoint).not.toContain(uid)
  })

  it('masks the path of an override URL, which may hold a key of its own', () => {
    expect(maskUrl('https://mainnet.infura.io/v3/abcdef0123456789')).toBe('https://mainnet.infura.io/…6789')
    expect(maskUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545')
  })

  it('names what is missing for each chain that is not polled', () => {
    const none = resolveTargets(Config.parse({}), uid)
    expect(none[0]!.notConfigured).toMatch(/set rpcBaseUrl \(or chains\.8217\.url\)/)
    const noUid = resolveTargets(
      Config.parse({ rpcBaseUrl: 'https://rpc.example' }),
      null,
      'The OS keychain is not reachable (no D-Bus).',
    )
    expect(noUid[0]!.notConfigured).toBe('No project uid: The OS keychain is not reachable (no D-Bus).')
    const disabled = resolveTargets(
      Config.parse({ rpcBaseUrl: 'https://rpc.example', chains: { '10': { enabled: false } } }),
      uid,
    )
    expect(disabled.find((t) => t.info.serviceId === 10)!.notConfigured).toMatch(
      /chains\.10\.enabled is false/,
    )
  })

  it('takes per-chain interval, time-out and thresholds, with defaults from the block time', () => {
    const targets = resolveTargets(
      Config.parse({
        pollIntervalMs: 3000,
        chains: { '1': { pollIntervalMs: 12_000, stalledAfterSeconds: 600, timeoutMs: 900 } },
      }),
      uid,
    )
    const eth = targets.find((t) => t.info.serviceId === 1)!
    expect(eth).toMatchObject({
      intervalMs: 12_000,
      timeoutMs: 900,
      thresholds: { laggingAfterSeconds: 60, stalledAfterSeconds: 600 },
    })
    expect(targets.find((t) => t.info.serviceId === 56)!).toMatchObject({ intervalMs: 3000, timeoutMs: 4000 })
  })

  it('rejects a threshold that is not a positive number', () => {
    expect(Config.safeParse({ chains: { '1': { laggingAfterSeconds: -1 } } }).success).toBe(false)
    expect(Config.safeParse({ chains: { '1': { timeoutMs: 5 } } }).success).toBe(false)
  })
})

describe('secrets in node answers', () => {
  const standin = useRpcStandin()

  it('masks the project uid when a node echoes the URL back in an error', async () => {
    const node = await standin((_body, path) => ({
      status: 500,
      body: `internal error while serving ${path}`,
    }))
    const poller = pollerFor(Config.parse({ rpcBaseUrl: node.url, chains: { '56': {} } }), uid)
    try {
      const bsc = (await poller.pollRound()).chains.find((c) => c.serviceId === 56)!
      expect(bsc.status).toBe('failing')
      expect(bsc.reason).toContain('/bsc/…cret')
      expect(JSON.stringify(bsc)).not.toContain(uid)
    } finally {
      poller.stop()
    }
  })
})
