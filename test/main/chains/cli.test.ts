import { chainsCommand } from '../../../src/main/cli/main'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { useAnvil } from '../../support/anvil'
import { useTempDir } from '../../support/temp'

function capture() {
  const out: string[] = []
  const err: string[] = []
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), env: {} }, out, err }
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

describe('watchdesk chains', () => {
  const anvil = useAnvil('file')
  const tempDir = useTempDir()

  it('prints one JSON object per chain and exits 0 when every enabled chain is fine', async () => {
    const node = await anvil({ chainId: 42161, blockTimeSeconds: 1 })
    const dir = tempDir()
    const config = join(dir, 'c.json')
    writeFileSync(config, JSON.stringify({ chains: { '42161': { url: node.url } } }))
    const { io, out } = capture()
    const code = await chainsCommand(['--data-dir', dir, '--config', config, '--json'], io, {
      secrets: createMemoryStore(),
    })
    const rows = out
      .join('\n')
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rows).toHaveLength(12)
    const arbitrum = rows.find((r) => r.serviceId === 42161)
    for (const key of [
      'serviceId',
      'name',
      'status',
      'head',
      'blockAgeSeconds',
      'lagBlocks',
      'latencyMs',
      'clientVersion',
      'netVersion',
      'error',
    ]) {
      expect(arbitrum).toHaveProperty(key)
    }
    expect(arbitrum).toMatchObject({
      name: 'Arbitrum One',
      status: 'healthy',
      netVersion: '42161',
      error: null,
    })
    expect(rows.filter((r) => r.status === 'not_configured')).toHaveLength(11)
    expect(code).toBe(0)
  })

  it('exits 1 and puts the down chain first in the table when an enabled chain is down', async () => {
    const node = await anvil({ chainId: 8217, blockTimeSeconds: 1 })
    const dir = tempDir()
    const config = join(dir, 'c.json')
    const dead = await closedPort()
    writeFileSync(
      config,
      JSON.stringify({
        chains: { '8217': { url: node.url }, '250': { url: `http://127.0.0.1:${dead}`, timeoutMs: 1000 } },
      }),
    )
    const { io, out } = capture()
    const code = await chainsCommand(['--data-dir', dir, '--config', config], io, {
      secrets: createMemoryStore(),
    })
    const lines = out.join('\n').split('\n')
    expect(code).toBe(1)
    expect(lines[0]).toMatch(/^chain\s+id\s+status\s+head/)
    expect(lines[1]).toMatch(/^Fantom\s+250\s+down\s+.*Connection refused/)
    expect(lines.find((l) => l.startsWith('Kaia'))).toMatch(/healthy/)
  })

  it('reports a bad config file in words and exits 2', async () => {
    const dir = tempDir()
    const config = join(dir, 'c.json')
    writeFileSync(config, JSON.stringify({ chains: { '56': { url: 'ftp://x' } } }))
    const { io, err } = capture()
    expect(
      await chainsCommand(['--data-dir', dir, '--config', config], io, { secrets: createMemoryStore() }),
    ).toBe(2)
    expect(err.join('\n')).toMatch(/not valid/)
  })

  it('lists every source with --sources (a table, and one JSON line per polled chain with --json), the excluded one with its reason, and exits 0', async () => {
    const node = await anvil({ chainId: 8217, blockTimeSeconds: 1 })
    const same = await anvil({ chainId: 8217, blockTimeSeconds: 1 })
    const other = await anvil({ chainId: 1, blockTimeSeconds: 1 })
    const dir = tempDir()
    const config = join(dir, 'c.json')
    writeFileSync(
      config,
      JSON.stringify({
        chains: {
          '8217': {
            url: node.url,
            references: [
              { name: 'kaia-2', url: same.url },
              { name: 'mainnet-by-mistake', url: other.url },
            ],
          },
        },
      }),
    )
    const table = capture()
    expect(
      await chainsCommand(['--data-dir', dir, '--config', config, '--sources'], table.io, {
        secrets: createMemoryStore(),
      }),
    ).toBe(0)
    const lines = table.out.join('\n').split('\n')
    expect(lines[0]).toMatch(/^chain\s+source\s+state\s+head\s+distance\s+latency ms/)
    expect(lines.slice(1, 4).map((l) => l.split(/\s{2,}/).slice(0, 3))).toEqual([
      ['Kaia', 'service node', 'counted'],
      ['Kaia', 'kaia-2', 'counted'],
      ['Kaia', 'mainnet-by-mistake', 'excluded: wrong chain'],
    ])
    expect(lines[3]).toMatch(/eth_chainId answers 1, not 8217: another network\.$/)

    const json = capture()
    await chainsCommand(['--data-dir', dir, '--config', config, '--sources', '--json'], json.io, {
      secrets: createMemoryStore(),
    })
    const rows = json.out
      .join('\n')
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rows.map((r) => r.serviceId)).toEqual([8217])
    expect(rows[0].corroboration).toMatchObject({ state: 'corroborated', sources: 3 })
    expect(
      rows[0].sources.map((s: { name: string; state: string; reason: string | null }) => [
        s.name,
        s.state,
        s.reason,
      ]),
    ).toEqual([
      ['service node', 'counted', null],
      ['kaia-2', 'counted', null],
      ['mainnet-by-mistake', 'excluded', 'wrong_chain'],
    ])
  })
})
