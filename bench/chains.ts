/**
 * npm run bench:chains — from one run, against twelve local anvil nodes, each chain with three
 * references (issue 22; each reference its own client and connections to the chain's node, as
 * a separate provider would be):
 *  1. the time of one poll round of all twelve chains with their references as a ratio to the
 *     slowest single source polled alone (a chain's service node without references; target
 *     ≤ 1.3: chains and references are polled concurrently), both directly against the nodes
 *     (~1 ms round trips, where the poller's own CPU shows) and through a forwarder that adds
 *     40 ms to every answer (a WAN-like round trip);
 *  2. CPU time per round, and as a ratio to bare HTTP posts of eth_blockNumber, one per source
 *     polled (12 × 4 = 48; target ≤ 1.3);
 *  3. heap after 10,000 rounds against heap after the first 1,000 (target ≤ 1.1).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { createPoller } from '../src/main/chains/poller'
import { resolveTargets } from '../src/main/chains/targets'
import { startAnvil } from '../src/main/demo/anvil'
import type { AnvilNode } from '../src/main/demo/anvil'
import { chainRegistry } from '../src/shared/chains/registry'
import { Config } from '../src/shared/config'
import { unwrap } from '../src/shared/result'
import { median } from './stats'

const rounds = Number(process.env.BENCH_ROUNDS ?? 10_000)
const delayMs = 40
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})

/** Forwards to a node after a pause: a round trip like a remote provider's. */
async function delayedForwarder(target: string): Promise<{ url: string; close(): void }> {
  const agent = new http.Agent({ keepAlive: true })
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      setTimeout(() => {
        const up = http.request(
          target,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' })
            answer.pipe(res)
          },
        )
        up.end(Buffer.concat(chunks))
      }, delayMs)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections()
      server.close()
      agent.destroy()
    },
  }
}

const referencesPerChain = Number(process.env.BENCH_REFERENCES ?? 3)

function pollerOver(urls: string[], references = referencesPerChain) {
  const chains = Object.fromEntries(
    chainRegistry.map((c, i) => [
      String(c.serviceId),
      {
        url: urls[i]!,
        references: Array.from({ length: references }, (_, r) => ({ name: `ref-${r + 1}`, url: urls[i]! })),
      },
    ]),
  )
  return createPoller({ targets: resolveTargets(Config.parse({ chains }), null), scrub: (t) => t })
}

/** Round time (all twelve with their references at once) against the slowest single source
 * polled alone (a service node without references), median of `samples`. */
async function concurrencyRatio(urls: string[], samples: number) {
  const poller = pollerOver(urls)
  const alone = pollerOver(urls, 0)
  const solo: number[] = []
  const sums: number[] = []
  const together: number[] = []
  await poller.pollRound() // identity calls and connections out of the way
  await alone.pollRound()
  for (let i = 0; i < samples; i++) {
    let slowest = 0
    let sum = 0
    for (const c of chainRegistry) {
      const monitor = alone.monitor(c.serviceId)!
      const start = performance.now()
      await monitor.poll()
      const took = performance.now() - start
      slowest = Math.max(slowest, took)
      sum += took
    }
    solo.push(slowest)
    sums.push(sum)
    const start = performance.now()
    await poller.pollRound()
    together.push(performance.now() - start)
  }
  poller.stop()
  alone.stop()
  return {
    round: median(together),
    slowest: median(solo),
    sequential: median(sums),
    ratio: median(together) / median(solo),
  }
}

async function bareRound(agent: http.Agent, urls: string[]): Promise<void> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
  await Promise.all(
    urls.map(
      (url) =>
        new Promise<void>((resolve, reject) => {
          const req = http.request(
            url,
            { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
            (res) => {
              res.resume()
              res.on('end', () => resolve())
            },
          )
          req.on('error', reject)
          req.end(body)
        }),
    ),
  )
}

async function cpuPerRound(run: () => Promise<unknown>, n: number): Promise<number> {
  const before = process.cpuUsage()
  for (let i = 0; i < n; i++) await run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000 / n
}

async function main() {
  console.log('starting twelve anvil nodes…')
  const nodes: AnvilNode[] = await Promise.all(
    chainRegistry.map(async (c) => unwrap(await startAnvil({ chainId: c.serviceId, blockTimeSeconds: 1 }))),
  )
  const forwarders = await Promise.all(nodes.map((n) => delayedForwarder(n.url)))
  try {
    const urls = nodes.map((n) => n.url)
    const direct = await concurrencyRatio(urls, 50)
    const remote = await concurrencyRatio(
      forwarders.map((f) => f.url),
      20,
    )

    const poller = pollerOver(urls)
    await poller.pollRound()
    const agent = new http.Agent({ keepAlive: true })
    // One bare post per source polled: the service node and its three references.
    const sourceUrls = urls.flatMap((u) => Array.from({ length: referencesPerChain + 1 }, () => u))
    // Interleaved blocks, the median of each: on a shared machine a neighbour's burst then
    // lands in one block of each kind rather than in all of one.
    const bareBlocks: number[] = []
    const pollerBlocks: number[] = []
    const ratios: number[] = []
    for (let block = 0; block < 10; block++) {
      bareBlocks.push(await cpuPerRound(() => bareRound(agent, sourceUrls), 50))
      pollerBlocks.push(await cpuPerRound(() => poller.pollRound(), 50))
      ratios.push(pollerBlocks.at(-1)! / bareBlocks.at(-1)!)
    }
    const cpuBare = median(bareBlocks)
    const cpuPoller = median(pollerBlocks)
    const cpuRatio = median(ratios)

    let heapEarly = 0
    const started = performance.now()
    for (let i = 1; i <= rounds; i++) {
      await poller.pollRound()
      if (i === Math.min(1000, rounds)) {
        gc()
        heapEarly = process.memoryUsage().heapUsed
      }
    }
    gc()
    const heapLate = process.memoryUsage().heapUsed
    const seconds = (performance.now() - started) / 1000
    poller.stop()
    agent.destroy()

    const mb = (b: number) => (b / 1024 / 1024).toFixed(1)
    console.log(
      `\nchains poller, twelve local anvil nodes (${process.platform}/${process.arch}, node ${process.versions.node})`,
    )
    console.log(
      `round of 12 × (1 + ${referencesPerChain} references) ÷ slowest single source, direct:      ${direct.ratio.toFixed(2)}  (${direct.round.toFixed(2)} ms ÷ ${direct.slowest.toFixed(2)} ms)`,
    )
    console.log(
      `  (one after the other the twelve take ${direct.sequential.toFixed(2)} ms: on loopback the round is bound by CPU, not waiting)`,
    )
    console.log(
      `round of 12 × (1 + ${referencesPerChain} references) ÷ slowest single source, +${delayMs} ms RTT: ${remote.ratio.toFixed(2)}  (${remote.round.toFixed(1)} ms ÷ ${remote.slowest.toFixed(1)} ms; target ≤ 1.3)`,
    )
    console.log(
      `CPU per round:                                   ${cpuPoller.toFixed(2)} ms  (${cpuRatio.toFixed(2)} × ${sourceUrls.length} bare eth_blockNumber posts, one per source, ${cpuBare.toFixed(2)} ms; target ≤ 1.3)`,
    )
    console.log(
      `heap after ${rounds} rounds ÷ after ${Math.min(1000, rounds)}:         ${(heapLate / heapEarly).toFixed(2)}  (${mb(heapLate)} MB ÷ ${mb(heapEarly)} MB; ${seconds.toFixed(0)} s; target ≤ 1.1)`,
    )
  } finally {
    forwarders.forEach((f) => f.close())
    await Promise.all(nodes.map((n) => n.stop()))
  }
}

await main()
