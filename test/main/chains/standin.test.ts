import { describe, expect, it } from 'vitest'
import { Config } from '../../../src/shared/config'
import type { ConfigInput } from '../../../src/shared/config'
import { backoffDelay, createPoller, pollerFor, resolveTargets } from '../../../src/main/chains'
import type { PollClock } from '../../../src/main/chains'
import type { ChainStatus } from '../../../src/shared/contract/chains'
import { manualClock } from '../../support/clock'
import { hex, jsonRpcNode, useRpcStandin } from '../../support/rpc-standin'
import { waitFor } from '../../support/wait'

/** What anvil cannot show, against a scripted JSON-RPC stand-in. */

const nowSeconds = () => Math.floor(Date.now() / 1000)
const freshBlock = () => ({ number: hex(100), timestamp: hex(nowSeconds()) })
const etcNode = (extra: Record<string, unknown> = {}) => ({
  eth_blockNumber: hex(100),
  eth_getBlockByNumber: freshBlock,
  web3_clientVersion: 'core-geth/v1.12.20',
  net_version: '1',
  eth_chainId: hex(61),
  ...extra,
})

/** These tests classify single polls: no confirmation (chain-alerts.test.ts covers the debounce). */
const pollerOver = (chains: ConfigInput['chains'], clock?: PollClock) =>
  pollerFor(Config.parse({ chains }), null, undefined, null, clock, true)
const only = async (
  chains: ConfigInput['chains'],
  serviceId: number,
  clock?: PollClock,
): Promise<ChainStatus> => {
  const poller = pollerOver(chains, clock)
  try {
    return (await poller.pollRound()).chains.find((c) => c.serviceId === serviceId)!
  } finally {
    poller.stop()
  }
}

describe('chains poller against a scripted node', () => {
  const standin = useRpcStandin()

  it('accepts net_version "1" on 61 when eth_chainId says 61', async () => {
    const node = await standin(jsonRpcNode(etcNode()))
    const etc = await only({ '61': { url: node.url } }, 61)
    expect(etc.status).toBe('healthy')
    expect(etc.netVersion).toBe('1')
    expect(etc.identity).toBe('ok')
    expect(etc.clientVersion).toBe('core-geth/v1.12.20')
  })

  it('marks the identity unverified when only net_version "1" is answered', async () => {
    const node = await standin(
      jsonRpcNode(etcNode({ eth_chainId: { error: { code: -32601, message: 'method not found' } } })),
    )
    const etc = await only({ '61': { url: node.url } }, 61)
    expect(etc.status).toBe('healthy')
    expect(etc.identity).toBe('unverified')
    expect(etc.identityNote).toMatch(/cannot be told apart/)
  })

  it('trusts eth_chainId over an unusual net_version, and says so', async () => {
    const node = await standin(jsonRpcNode(etcNode({ net_version: '61' })))
    const etc = await only({ '61': { url: node.url } }, 61)
    expect(etc.status).toBe('healthy')
    expect(etc.identity).toBe('ok')
    expect(etc.identityNote).toMatch(/net_version answers "61" where this network's nodes usually answer "1"/)
  })

  it('turns wrong network on net_version alone when the node does not answer eth_chainId', async () => {
    const node = await standin(
      jsonRpcNode(
        etcNode({
          net_version: '137',
          eth_chainId: { error: { code: -32601, message: 'method not found' } },
        }),
      ),
    )
    const etc = await only({ '61': { url: node.url } }, 61)
    expect(etc.status).toBe('wrong_network')
    expect(etc.reason).toMatch(/net_version answers "137", not "1"/)
  })

  it('turns a chain down on HTTP 503, naming the status', async () => {
    const node = await standin(() => ({ status: 503, body: 'upstream unavailable' }))
    const chain = await only({ '250': { url: node.url } }, 250)
    expect(chain.status).toBe('down')
    expect(chain.error).toMatchObject({ kind: 'http', code: 503 })
    expect(chain.reason).toMatch(/HTTP 503 Service Unavailable: upstream unavailable/)
  })

  it('turns a chain down on HTTP 429 and backs off', async () => {
    const node = await standin(() => ({ status: 429, body: { error: 'too many requests' } }))
    const poller = pollerOver({ '137': { url: node.url, pollIntervalMs: 5000 } })
    try {
      await poller.pollRound()
      await poller.pollRound()
      const chain = poller.snapshot().chains.find((c) => c.serviceId === 137)!
      expect(chain.status).toBe('down')
      expect(chain.error).toMatchObject({ kind: 'http', code: 429 })
      expect(chain.reason).toMatch(/Rate limited.*2 polls in a row/)
      expect(poller.monitor(137)!.failures).toBe(2)
      expect(backoffDelay(5000, 2)).toBe(20_000)
      expect(backoffDelay(5000, 10)).toBe(60_000)
      expect(backoffDelay(5000, 0)).toBe(5000)
      // Not rate limited: polled two intervals apart, so a recovery is seen within two intervals.
      expect(backoffDelay(5000, 10, false)).toBe(10_000)
    } finally {
      poller.stop()
    }
  })

  it('turns a chain down when it does not answer within the time-out', async () => {
    // Never answers: the poll ends on its own time-out.
    const node = await standin(() => new Promise<never>(() => {}))
    const chain = await only({ '25': { url: node.url, timeoutMs: 200 } }, 25)
    expect(chain.status).toBe('down')
    expect(chain.error).toMatchObject({ kind: 'timeout' })
    expect(chain.reason).toBe('No answer within 200 ms.')
  })

  it('turns a chain down on a malformed reply, quoting it', async () => {
    const node = await standin(() => ({ body: '<html>gateway error</html>' }))
    const chain = await only({ '592': { url: node.url } }, 592)
    expect(chain.status).toBe('down')
    expect(chain.error?.kind).toBe('malformed')
    expect(chain.reason).toContain('<html>gateway error</html>')
  })

  it('treats a non-hex block number as malformed', async () => {
    const node = await standin(jsonRpcNode({ ...etcNode(), eth_blockNumber: 'latest' }))
    const chain = await only({ '61': { url: node.url } }, 61)
    expect(chain.status).toBe('down')
    expect(chain.reason).toMatch(/not a hex quantity/)
  })

  it('falls back to single calls when the node refuses a batch, and stays healthy', async () => {
    const node = await standin(jsonRpcNode(etcNode(), { refuseBatch: true }))
    const poller = pollerOver({ '61': { url: node.url } })
    try {
      const first = (await poller.pollRound()).chains.find((c) => c.serviceId === 61)!
      const before = node.received.length
      await poller.pollRound()
      const second = node.received.slice(before)
      expect(first.status).toBe('healthy')
      expect(first.batch).toBe('refused')
      expect(first.head).toBe(100)
      expect(Array.isArray(node.received[0])).toBe(true)
      // Single calls from then on, and the identity is not due again; the head block gave its
      // number, so eth_blockNumber is not asked beside it.
      // (eth_syncing and net_peerCount, refused in the first round, are not asked again; the
      // finalized and safe blocks are paced: asked again after 30 s.)
      expect(
        second
          .map(
            (b) => (b as { method: string; params: unknown[] }).params[0] ?? (b as { method: string }).method,
          )
          .sort(),
      ).toEqual(['latest'])
    } finally {
      poller.stop()
    }
  })

  it('keeps one connection alive across polls', async () => {
    const node = await standin(jsonRpcNode(etcNode()))
    const poller = pollerOver({ '61': { url: node.url } })
    try {
      for (let i = 0; i < 5; i++) await poller.pollRound()
      expect(node.received.length).toBe(5)
      expect(node.connections).toBe(1)
    } finally {
      poller.stop()
    }
  })

  it('falls back to the time since the head advanced when eth_getBlockByNumber is refused', async () => {
    let head = 100
    const node = await standin(
      jsonRpcNode({
        ...etcNode(),
        eth_blockNumber: () => hex(head),
        eth_getBlockByNumber: { error: { code: -32601, message: 'Method not found' } },
      }),
    )
    const poller = pollerOver({ '61': { url: node.url } })
    try {
      await poller.pollRound()
      head = 101
      const chain = (await poller.pollRound()).chains.find((c) => c.serviceId === 61)!
      expect(chain.status).toBe('healthy')
      expect(chain.blockAgeSource).toBe('advance')
      expect(chain.head).toBe(101)
      expect(chain.lagEstimated).toBe(true)
      // Once refused, the poller stops asking: the second poll is eth_blockNumber alone.
      expect(node.received.at(-1)).toMatchObject({ method: 'eth_blockNumber' })
    } finally {
      poller.stop()
    }
  })

  it('measures lag in blocks against a reference node (the older referenceUrl), and calls 8 blocks behind lagging', async () => {
    const node = await standin(jsonRpcNode({ ...etcNode(), eth_chainId: hex(61) }))
    // One reference still measures the lag (quorum: as many references as there are); 8 blocks
    // is past lagging (5 blocks of 13 s) and within disagreeAfterBlocks (20).
    const reference = await standin(jsonRpcNode({ eth_blockNumber: hex(108), eth_chainId: hex(61) }))
    const chain = await only({ '61': { url: node.url, referenceUrl: reference.url } }, 61)
    expect(chain.lagEstimated).toBe(false)
    expect(chain.referenceHead).toBe(108)
    expect(chain.lagBlocks).toBe(8)
    expect(chain.status).toBe('lagging')
    expect(chain.reason).toMatch(/8 blocks behind the corroborated head/)
    expect(chain.sources.map((s) => [s.name, s.state, s.distance])).toEqual([
      ['service node', 'counted', -8],
      ['reference', 'counted', 0],
    ])
  })

  it('estimates the lag from block age when there is no reference, and says it is an estimate', async () => {
    const clock = manualClock(1_700_000_000_000)
    const old = 1_700_000_000 - 40
    const node = await standin(
      jsonRpcNode({ ...etcNode(), eth_getBlockByNumber: { number: hex(100), timestamp: hex(old) } }),
    )
    const chain = await only({ '61': { url: node.url } }, 61, clock)
    expect(chain.lagEstimated).toBe(true)
    expect(chain.blockAgeSeconds).toBe(40)
    // 40 s old on a 13 s chain: about two blocks behind.
    expect(chain.lagBlocks).toBe(2)
    expect(chain.status).toBe('healthy')
  })

  it('polls each chain on its own timer: a hanging chain does not hold back a fast one', async () => {
    const fast = await standin(jsonRpcNode(etcNode()))
    // Never answers within the test (its time-out is a minute away).
    const hanging = await standin(() => new Promise<never>(() => {}))
    const config = Config.parse({
      chains: { '61': { url: fast.url, pollIntervalMs: 250 }, '1': { url: hanging.url, timeoutMs: 60_000 } },
    })
    const clock = manualClock()
    let rounds = 0
    const poller = createPoller({
      targets: resolveTargets(config, null),
      scrub: (t) => t,
      onRound: () => rounds++,
      coalesceMs: 10,
      clock,
    })
    try {
      poller.start()
      for (let poll = 1; poll <= 4; poll++) {
        // The fast chain answered: its publish and its next poll wait on the clock.
        await waitFor(() => clock.pending() === 2, `the fast chain's poll ${poll} to be answered`)
        clock.advance(250)
      }
      await waitFor(() => fast.received.length === 5, "the fast chain's fifth poll")
      expect(hanging.received.length).toBe(1)
      // The first snapshot at start, then one per answered poll of the fast chain.
      expect(rounds).toBe(5)
    } finally {
      poller.stop()
    }
  })
})
