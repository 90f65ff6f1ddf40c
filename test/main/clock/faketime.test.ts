import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemo } from '../../../src/main/demo'
import type { Demo } from '../../../src/main/demo'
import { createLogger } from '../../../src/main/log'
import { chainRegistry } from '../../../src/shared/chains/registry'
import type { ChainsSnapshot } from '../../../src/shared/contract/chains'
import type { ClockStatus } from '../../../src/shared/contract/clock'
import { unwrap } from '../../../src/shared/result'
import { callApi } from '../../support/console'
import { runCli, useServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { fakedClockEnv, haveFaketime } from './harness'

/** Issue 32.3's test: this process's clock is 120 s ahead (libfaketime, Debian's libfaketime), the
 * twelve chains (anvil, started here, unfaked) stamp real time, so do the gateway's Date header and
 * the demo's webhooks' created_at. The console must name the offset within 30 s and call at most
 * one chain lagging; `watchdesk doctor` names it too. */
const ahead = 120

describe.skipIf(!haveFaketime)('the clock guard with the process clock 120 s ahead', () => {
  const serve = useServeProcess()
  const temp = useTempDir('watchdesk-clock-', { per: 'file' })
  let demo: Demo
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    demo = unwrap(await startDemo())
    env = await fakedClockEnv(demo, ahead)
  }, 120_000)
  afterAll(async () => {
    await demo?.stop()
  })

  it('names the offset within 30 s and calls at most one of the twelve chains lagging', async () => {
    const dataDir = temp()
    const c = await serve(['--data-dir', dataDir, '--config', demo.configFile], env)
    const api = { url: c.consoleUrl, token: c.token }
    if (c.listenerUrl)
      await demo.sendEvents(
        c.listenerUrl,
        createLogger(() => undefined, 'error'),
        60_000,
      )
    const off = await waitFor(
      async () => {
        const { json } = await callApi(api as never, 'clock.status')
        const status = json.value as ClockStatus
        return status.state === 'off' ? status : null
      },
      'the clock guard to find the clock off',
      { timeoutMs: 90_000, intervalMs: 500 },
    )
    expect(Math.abs(off.offsetSeconds! - ahead)).toBeLessThanOrEqual(30)
    expect(Math.abs(off.correctionSeconds - ahead)).toBeLessThanOrEqual(30)
    expect(off.message).toMatch(/clock is 1\d\d s ahead of/)
    expect(off.fix).toMatch(/NTP/)
    expect(off.references.filter((r) => r.counted).length).toBeGreaterThanOrEqual(2)
    // Long enough for a lagging status to be confirmed (3 polls and 15 s) on every chain had the
    // block ages been measured against the local clock: every chain polled 20 s past the finding.
    const since = Date.parse(off.at) + 20_000
    const snapshot = await waitFor(
      async () => {
        const { json } = await callApi(api as never, 'chains.list')
        const snap = json.value as ChainsSnapshot
        const polled = snap.chains.filter((ch) => ch.status !== 'not_configured')
        return polled.length === chainRegistry.length &&
          polled.every((ch) => ch.checkedAt !== null && Date.parse(ch.checkedAt) >= since)
          ? snap
          : null
      },
      'every chain to be polled 20 s after the offset was found',
      { timeoutMs: 120_000, intervalMs: 500 },
    )
    // Lagging, or worse for the same reason (stalled, halted: a block age past their thresholds).
    const late = snapshot.chains.filter((ch) => ['lagging', 'stalled', 'halted'].includes(ch.status))
    expect(late.length, late.map((ch) => `${ch.name}: ${ch.reason}`).join('\n')).toBeLessThanOrEqual(1)
    // Ages are against the corrected clock: none reads two minutes old.
    const ages = snapshot.chains.map((ch) => ch.blockAgeSeconds ?? 0)
    expect(Math.max(...ages)).toBeLessThan(60)
    const metrics = await fetch(`${c.consoleUrl}/metrics`, {
      headers: { authorization: `Bearer ${c.token}` },
    })
    const text = await metrics.text()
    expect(text).toMatch(/^watchdesk_clock_off 1$/m)
    const offset = Number(/^watchdesk_clock_offset_seconds (\S+)$/m.exec(text)?.[1])
    expect(Math.abs(offset - ahead)).toBeLessThanOrEqual(30)
  }, 300_000)

  it('doctor names the offset and the fix (NTP) in its Clock line', async () => {
    const dataDir = temp()
    const result = await runCli(['doctor', '--data-dir', dataDir, '--config', demo.configFile, '--json'], env)
    const checks = result.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { area: string; state: string; detail: string; fix: string | null })
    const clock = checks.find((l) => l.area === 'clock')
    expect(clock, result.stdout + result.stderr).toBeDefined()
    expect(clock!.state).toBe('warn')
    const seconds = Number(/(\d+(?:\.\d+)?) s ahead/.exec(clock!.detail)?.[1])
    expect(Math.abs(seconds - ahead), clock!.detail).toBeLessThanOrEqual(30)
    expect(clock!.fix).toMatch(/NTP/)
  }, 120_000)
})
