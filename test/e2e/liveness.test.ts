import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { sendTestEvent } from '../../src/main/webhooks'
import { useAnvil } from '../support/anvil'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useServeProcess } from '../support/serve-process'
import type { ServeProcess } from '../support/serve-process'
import { useTempDir } from '../support/temp'
import { waitFor } from '../support/wait'

/** The console never shows a back end that is gone as live: `bin/watchdesk serve` as its own
 * process, stopped, frozen and restarted under a page in Chromium. */

const sidebarStatus = (page: Page) => page.locator('.sidebar-foot .status').first().textContent()
const unreachable = /^back end unreachable since \d\d:\d\d:\d\d$/

/** Starts watching the sidebar in the page; the returned function resolves with the milliseconds
 * from `from` until the sidebar said unreachable, as the page's own clock stamped the change (a
 * MutationObserver), so how slowly this test polls a loaded browser is not counted. */
async function watchUnreachable(page: Page): Promise<(from: number) => Promise<number>> {
  await page.evaluate((pattern) => {
    const w = window as unknown as { unreachableAt: number | null }
    w.unreachableAt = null
    const re = new RegExp(pattern)
    const check = () => {
      const text = document.querySelector('.sidebar-foot .status')?.textContent?.trim() ?? ''
      if (w.unreachableAt === null && re.test(text)) w.unreachableAt = Date.now()
    }
    new MutationObserver(check).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
    })
    check()
  }, unreachable.source)
  return async (from) => {
    const at = await waitFor(
      () => page.evaluate(() => (window as unknown as { unreachableAt: number | null }).unreachableAt),
      'the sidebar to say unreachable',
      { timeoutMs: 30_000, intervalMs: 50 },
    )
    return at - from
  }
}

/** The listener's webhook URL: serve prints it on the line after the console's, which
 * useServeProcess may not have read yet when it resolves. */
async function webhooksUrl(serve: ServeProcess): Promise<string> {
  const line = await waitFor(
    () => /webhooks:\s+(http:\/\/\S+\/webhooks)/.exec(serve.output()),
    `serve to print its webhooks line (so far:\n${serve.output()})`,
    { timeoutMs: 5000 },
  )
  return line[1]!
}

/** Resolves once the page has opened `count` more push streams (its reconnect attempts). */
function pushAttempts(page: Page, count: number): Promise<void> {
  let seen = 0
  return new Promise((resolve) => {
    const onRequest = (request: { url(): string }) => {
      if (!request.url().includes('/api/push') || ++seen < count) return
      page.off('request', onRequest)
      resolve()
    }
    page.on('request', onRequest)
  })
}

function exited(serve: ServeProcess): Promise<void> {
  if (serve.process.exitCode !== null || serve.process.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => serve.process.once('exit', () => resolve()))
}

describe('liveness in Chromium', () => {
  const serve = useServeProcess()
  // One page for the file: each test loads its own serve's document in it.
  const openPage = useSharedPage(useChromium())
  const anvil = useAnvil()
  const tempDir = useTempDir()

  it('stops showing a frozen or stopped back end as live: unreachable within 5 s, figures greyed with their age', async () => {
    const node = await anvil({ chainId: 56, blockTimeSeconds: 1 })
    const dir = tempDir()
    const overlay = join(dir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ pollIntervalMs: 1000, chains: { '56': { url: node.url } } }))
    const running = await serve(['--data-dir', dir, '--config', overlay])
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${running.consoleUrl}/?token=${encodeURIComponent(running.token)}#/chains`)
    const row = page.locator('tr[data-service-id="56"]')
    await eventually(() => row.getAttribute('data-status')).toBe('healthy')
    await eventually(() => sidebarStatus(page)).toMatch(/^back end \d+\.\d+\.\d+$/)
    expect(await page.locator('[data-stale]').count()).toBe(0)

    // Frozen (the socket stays open, nothing answers): only the heartbeat can tell.
    const frozenNoticed = await watchUnreachable(page)
    const frozenAt = Date.now()
    running.process.kill('SIGSTOP')
    const frozenMs = await frozenNoticed(frozenAt)
    expect(frozenMs).toBeLessThanOrEqual(5000)
    expect(await page.locator('.chains-view[data-stale]').count()).toBe(1)
    expect(await page.locator('.chains-view .stale-note').textContent()).toMatch(
      /^as of \d\d:\d\d:\d\d · \d+ s old$/,
    )
    expect(await page.locator('.link-banner').textContent()).toMatch(/no heartbeat for \d s/)
    // The last known status is still there to read, but greyed, not green.
    expect(await row.getAttribute('data-status')).toBe('healthy')
    expect(await page.locator('.chains-table').evaluate((el) => getComputedStyle(el).filter)).toBe(
      'grayscale(1)',
    )
    await saveScreenshot(page, 'liveness-frozen-chains-1280x800')

    // Thawed: live again by itself, the statuses move on.
    running.process.kill('SIGCONT')
    await eventually(() => sidebarStatus(page)).toMatch(/^back end \d+\.\d+\.\d+$/)
    expect(await page.locator('[data-stale]').count()).toBe(0)

    // Stopped (SIGTERM, as in the report): the stream ends, the page says so at once.
    const retried = pushAttempts(page, 3)
    const stoppedNoticed = await watchUnreachable(page)
    const stoppedAt = Date.now()
    running.process.kill('SIGTERM')
    const stoppedMs = await stoppedNoticed(stoppedAt)
    expect(stoppedMs).toBeLessThanOrEqual(5000)
    await exited(running)
    // Still saying so after the page has tried to reconnect three times (0.5, 1 and 2 s apart):
    // nothing turns green again while it is gone.
    await retried
    expect((await sidebarStatus(page))?.trim()).toMatch(unreachable)
    expect(await page.locator('.chains-view[data-stale]').count()).toBe(1)
    await page.goto(`${running.consoleUrl}/#/overview`).catch(() => {})
    console.info(`liveness: frozen back end noticed in ${frozenMs} ms, stopped one in ${stoppedMs} ms`)
  })

  it('reconnects by itself to a back end started again on the same port, and shows an event posted afterwards', async () => {
    const secret = 'whsec_liveness_0123456789abcdef'
    const dir = tempDir()
    const env = {
      ...process.env,
      WATCHDESK_TOKEN: 'liveness-token-0123456789',
      WATCHDESK_WEBHOOK_SECRETS: secret,
    }
    const first = await serve(['--data-dir', dir], env)
    const port = new URL(first.consoleUrl).port
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${first.consoleUrl}/?token=${encodeURIComponent(first.token)}#/events`)
    const sentBefore = await sendTestEvent({
      url: await webhooksUrl(first),
      secret,
      type: 'card.created',
    })
    expect(sentBefore).toMatchObject({ ok: true, value: { status: 200 } })
    await eventually(() => page.locator('[data-event-id]').count()).toBe(1)

    const killNoticed = await watchUnreachable(page)
    const killedAt = Date.now()
    first.process.kill('SIGTERM')
    expect(await killNoticed(killedAt)).toBeLessThanOrEqual(5000)
    await exited(first)
    await saveScreenshot(page, 'liveness-stopped-events-1280x800')

    const second = await serve(['--data-dir', dir, '--port', port], env)
    expect(second.consoleUrl).toBe(first.consoleUrl)
    const restartedAt = Date.now()
    const sentAfter = await sendTestEvent({
      url: await webhooksUrl(second),
      secret,
      type: 'funding.completed',
    })
    expect(sentAfter).toMatchObject({ ok: true, value: { status: 200 } })
    const id = sentAfter.ok ? sentAfter.value.id : ''
    await eventually(() => page.locator(`[data-event-id="${id}"]`).count()).toBe(1)
    await eventually(() => sidebarStatus(page)).toMatch(/^back end \d+\.\d+\.\d+$/)
    const backMs = Date.now() - restartedAt
    // Same page, never reloaded: both events, the count refreshed, the listener strip live.
    expect(await page.locator('[data-event-id]').count()).toBe(2)
    await eventually(() => page.getByLabel('Event count').textContent()).toBe('2 stored')
    expect(await page.locator('[data-stale]').count()).toBe(0)
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(1)
    console.info(`liveness: live again ${backMs} ms after the restart`)
    await saveScreenshot(page, 'liveness-reconnected-events-1280x800')
  })
})
