// `npm run bench:payments`: the payments client against the local stand-in of the payments API.
// Every figure is a ratio against a baseline measured in the same run:
//  1. client overhead per call (auth headers, limiter, idempotency, error shaping) vs a bare fetch
//     with the same headers to the same stand-in;
//  2. limiter throughput vs the plan (spec 8): sustained requests per minute the limiter lets
//     through a 500/5,000-request burst, over the plan's rate, on a virtual clock shared with the
//     stand-in, and the number of 429s it met (must be 0);
//  3. the same on the real clock with a custom plan small enough to finish in seconds.
import { silentLogger } from '../src/main/log'
import { createLimiter, createPaymentsClient, systemClock, virtualClock } from '../src/main/payments'
import type { ApiKey, Clock } from '../src/main/payments'
import type { PlanLimits } from '../src/shared/payments'
import { allScopes, startPaymentsStandin } from '../test/support/payments-standin'
import { median } from './stats'

const key: ApiKey = { name: 'bench', secret: 'sk_sandbox_bench_0123456789', kind: 'sandbox' }
const unlimited: PlanLimits = { perMinute: 1e9, perSecond: 1e9 }

function client(url: string, limits: PlanLimits, clock: Clock) {
  return createPaymentsClient({
    baseUrl: url,
    key,
    businessId: 'biz_bench',
    limiter: createLimiter(limits, clock),
    clock,
    timeoutMs: 10_000,
    log: silentLogger,
  })
}

async function overhead(): Promise<void> {
  const s = await startPaymentsStandin({
    keys: { [key.secret]: { scopes: allScopes, limits: unlimited, businesses: ['biz_bench'] } },
  })
  const c = client(s.url, unlimited, systemClock)
  const bare = () =>
    fetch(`${s.url}/v1/wallets`, {
      headers: {
        authorization: `Bearer ${key.secret}`,
        accept: 'application/json',
        'x-business-id': 'biz_bench',
      },
    }).then((r) => r.text())
  const viaClient = () => c.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' })
  const calls = 400
  const rounds = 7
  const bareUs: number[] = []
  const clientUs: number[] = []
  for (let i = 0; i < 200; i++) await Promise.all([bare(), viaClient()]) // warm-up
  for (let r = 0; r < rounds; r++) {
    const pairs = [
      [bare, bareUs],
      [viaClient, clientUs],
    ] as const
    for (const [fn, out] of r % 2 === 0 ? pairs : [...pairs].reverse()) {
      const t0 = performance.now()
      for (let i = 0; i < calls; i++) await fn()
      out.push(((performance.now() - t0) * 1000) / calls)
    }
    s.requests.length = 0
  }
  await s.close()
  const b = median(bareUs)
  const cl = median(clientUs)
  console.log(`client overhead     ${calls} sequential GET /v1/wallets × ${rounds} rounds`)
  console.log(`  bare fetch        ${b.toFixed(0).padStart(6)} µs/call (baseline)`)
  console.log(`  payments client   ${cl.toFixed(0).padStart(6)} µs/call   ratio ${(cl / b).toFixed(2)}×`)
}

async function throughput(name: string, limits: PlanLimits, burst: number): Promise<void> {
  const clock = virtualClock()
  const s = await startPaymentsStandin({
    keys: { [key.secret]: { scopes: allScopes, limits, businesses: ['biz_bench'] } },
    now: clock.now,
  })
  const c = client(s.url, limits, clock)
  const t0 = clock.now()
  const wall0 = performance.now()
  const results = await Promise.all(
    Array.from({ length: burst }, () =>
      c.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' }),
    ),
  )
  const elapsedMin = (clock.now() - t0) / 60_000
  const wallMs = performance.now() - wall0
  await s.close()
  // The first window's worth goes at the burst rate; what follows is the sustained rate.
  const sustained = (burst - limits.perMinute) / elapsedMin
  const failed = results.filter((r) => !r.ok).length
  console.log(
    `limiter ${name.padEnd(11)} ${String(burst).padStart(5)} requests at once: sustained ${sustained.toFixed(1).padStart(7)}/min vs plan ${limits.perMinute}/min` +
      `   ratio ${(sustained / limits.perMinute).toFixed(3)}   429s ${s.count429()}   failed ${failed}   (${elapsedMin.toFixed(2)} virtual min in ${wallMs.toFixed(0)} ms)`,
  )
}

async function realClock(): Promise<void> {
  const limits: PlanLimits = { perMinute: 100_000, perSecond: 40 }
  const s = await startPaymentsStandin({
    keys: { [key.secret]: { scopes: allScopes, limits, businesses: ['biz_bench'] } },
  })
  const c = client(s.url, limits, systemClock)
  const n = 200
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: n }, () =>
      c.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' }),
    ),
  )
  const seconds = (performance.now() - t0) / 1000
  await s.close()
  const sustained = (n - limits.perSecond) / seconds
  console.log(
    `limiter real clock  ${n} requests at once: sustained ${sustained.toFixed(1)}/s vs plan ${limits.perSecond}/s   ratio ${(sustained / limits.perSecond).toFixed(3)}   429s ${s.count429()}`,
  )
}

await overhead()
await throughput('sandbox', { perMinute: 100, perSecond: 20 }, 500)
await throughput('production', { perMinute: 1000, perSecond: 100 }, 5000)
await realClock()
