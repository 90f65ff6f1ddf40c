import { copyFileSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemo } from '../../src/main/demo'
import type { Demo } from '../../src/main/demo'
import type { RunningConsole } from '../../src/main/serve'
import { silentLogger } from '../../src/main/log'
import { unwrap } from '../../src/shared/result'
import { saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { callApi, useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'
import { clippedCells } from '../support/layout'
import { waitFor } from '../support/wait'

/** Every view at the window sizes an operator uses (the smallest laptop screen, the desktop
 * window's default, a full HD monitor), saved as the README's screenshots, with the checks a glance
 * would make: nothing wider than the window, no pane scrolling sideways, statuses in words, and no
 * serious or critical accessibility violation (axe-core). Once on a fresh data dir (empty states,
 * first-run checklist) and once with the demo's twelve local nodes and sample events (the README's
 * pictures). */
const viewports = [
  { width: 1024, height: 768, axe: ['fresh', 'demo'] },
  { width: 1280, height: 800, axe: [] },
  { width: 1920, height: 1080, axe: ['demo'] },
]
// axe-core costs most of this file (2–6 s a view on a loaded machine). The stylesheet has three
// layouts (below 1200 px, 1200–1599, 1600 and up): the narrow one shows the .narrow-only parts and
// the wide one every column, while the middle one shows a subset of the wide one's elements, so axe
// at the two ends checks every element; the middle size keeps the layout checks. The fresh install
// adds no element of its own at the wide size: its own parts (first-run checklist, empty states)
// are checked at the narrow one, and the wide layout's columns with the demo's data at 1920.
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/** axe-core in the page (evaluated over the debugging protocol, so the page's CSP stays strict;
 * once per document: moving between views changes only the hash). */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(ctx: Document, o: object): Promise<{ violations: unknown[] }>
          _audit?: { rules: { id: string; impact?: string }[] }
        }
      }
    ).axe
    // Every axe rule declares the impact its findings take (the rule's `impact` overrides its
    // checks'), so a minor or moderate rule can never report what this test keeps: skipped, they
    // save about a sixth of a run (region, landmarks, heading order…). A rule that declares none
    // still runs.
    const neverSerious = (axe._audit?.rules ?? []).filter(
      (r) => r.impact === 'minor' || r.impact === 'moderate',
    )
    const rules = Object.fromEntries(neverSerious.map((r) => [r.id, { enabled: false }]))
    return (await axe.run(document, { resultTypes: ['violations'], rules })).violations
  })
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 5)
          .join(', ')}`,
    )
}
const root = join(import.meta.dirname, '..', '..')
const rendererDir = join(root, 'out', 'renderer')
const docsScreenshots = join(root, 'docs', 'screenshots')
/** The README's pictures are refreshed on purpose (`npm run screenshots`), not by every test run. */
const updateDocs = process.env.WATCHDESK_UPDATE_SCREENSHOTS === '1'

interface Route {
  id: string
  label: string
}

/** Opens every route at one size in `page` (the file's one page, already at that size), checks it
 * and saves `<route>-<w>x<h>.png` (`<route>-<w>x<h>-fresh.png` for the fresh install). The
 * console's document is loaded once, by the first size that shows it: each later size resizes the
 * window and opens every route again (each route's view mounts afresh at the new size), which
 * spares Chromium a load of the app and of axe-core (about 1.5 s of CPU) per size. */
async function reviewViews(
  page: Page,
  running: RunningConsole,
  viewport: (typeof viewports)[number],
  data: 'fresh' | 'demo',
  checkView: (page: Page, route: Route) => Promise<void> = async () => {},
): Promise<void> {
  mkdirSync(docsScreenshots, { recursive: true })
  const suffix = data === 'fresh' ? '-fresh' : ''
  if (!page.url().startsWith(`${running.url}/`)) {
    await page.goto(running.launchUrl)
    await page.locator('.sidebar-foot .status').filter({ hasText: 'back end' }).waitFor()
  }
  // The routes as the app lists them, so a view added later is covered without editing this test.
  const routes: Route[] = await page.locator('nav.sidebar a').evaluateAll((links) =>
    links.map((a) => ({
      id: a.getAttribute('href')!.replace('#/', ''),
      label: a.querySelector('span')!.textContent!,
    })),
  )
  expect(routes.map((r) => r.id)).toEqual(
    expect.arrayContaining(['overview', 'events', 'chains', 'wallets', 'settings']),
  )
  for (const route of routes) {
    await page.goto(`${running.url}/#/${route.id}`)
    // Views keep a live push stream open, so the network never idles: each view says when its
    // first data has arrived (data-view-ready on the content area).
    await page.locator(`main.content[aria-label="${route.label}"][data-view-ready] h1`).first().waitFor()
    const sizes = await page.evaluate(() => {
      const content = document.querySelector('main.content') as HTMLElement
      const root = document.documentElement
      return {
        document: { scroll: root.scrollWidth, client: root.clientWidth },
        content: { scroll: content.scrollWidth, client: content.clientWidth },
        statuses: [...document.querySelectorAll('.status')].map((s) => s.textContent?.trim() ?? ''),
        // Inner panes that scroll sideways hide columns just as well (pre blocks of JSON may).
        sideScrollers: [...content.querySelectorAll<HTMLElement>('*')]
          .filter((el) => el.tagName !== 'PRE' && /auto|scroll/.test(getComputedStyle(el).overflowX))
          .filter((el) => el.scrollWidth > el.clientWidth + 1)
          .map(
            (el) =>
              `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ${el.scrollWidth}>${el.clientWidth}`,
          ),
        // A control or table wider than its panel crosses the panel's border (a clipped button).
        stickingOut: [...content.querySelectorAll<HTMLElement>('.panel')].flatMap((panel) => {
          const edge = panel.getBoundingClientRect().right
          return [...panel.querySelectorAll<HTMLElement>('table, button, input, select, textarea')]
            .filter((el) => el.getBoundingClientRect().right > edge + 1)
            .map(
              (el) =>
                `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}" in ${panel.getAttribute('aria-label') ?? panel.className}`,
            )
        }),
      }
    })
    const where = `${route.id} at ${viewport.width}x${viewport.height}${suffix}`
    expect(sizes.document.scroll, `${where}: page wider than the window`).toBeLessThanOrEqual(
      sizes.document.client,
    )
    expect(sizes.content.scroll, `${where}: content area overflows sideways`).toBeLessThanOrEqual(
      sizes.content.client,
    )
    expect(sizes.sideScrollers, `${where}: a pane scrolls sideways`).toEqual([])
    expect(sizes.stickingOut, `${where}: wider than its panel`).toEqual([])
    expect(
      sizes.statuses.some((s) => /back end \S+/.test(s)),
      `${where}: back-end status missing`,
    ).toBe(true)
    expect(
      sizes.statuses.every((s) => s.length > 0),
      `${where}: a status badge without words`,
    ).toBe(true)
    if (viewport.axe.includes(data))
      expect(await seriousViolations(page), `${where}: accessibility`).toEqual([])
    await checkView(page, route)
    const name = `${route.id}-${viewport.width}x${viewport.height}${suffix}`
    const file = await saveScreenshot(page, name)
    if (updateDocs && file) copyFileSync(file, join(docsScreenshots, `${name}.png`))
  }
}

const sizeName = ({ width, height }: (typeof viewports)[number]) => `${width}x${height}`
const pageSize = ({ width, height }: (typeof viewports)[number]) => ({ width, height })

// One page for the file: the fresh install's console, then the demo's.
const openPage = useSharedPage(useChromium())

describe('screens of a fresh install', () => {
  const startConsole = useTestConsole({ per: 'file' })
  const tempDir = useTempDir('watchdesk-test-', { per: 'file' })
  let running: RunningConsole
  beforeAll(async () => {
    running = await startConsole({ dataDir: tempDir(), rendererDir })
  })

  it.each(viewports.map((v) => ({ ...v, size: sizeName(v) })))(
    'shows every view at $size without overflow, with the first-run checklist',
    async (viewport) => {
      await reviewViews(
        await openPage(pageSize(viewport)),
        running,
        viewport,
        'fresh',
        async (page, route) => {
          if (route.id !== 'overview') return
          // A fresh data dir: the first-run checklist lists what is missing, each with its fix.
          const firstRun = page.locator('section[aria-label="First run"]')
          await firstRun.waitFor()
          expect(await firstRun.locator('.first-run-item').count()).toBe(4)
          expect(await firstRun.locator('.first-run-missing .first-run-fix').count()).toBeGreaterThan(0)
        },
      )
    },
    // Six views with their checks; on a loaded machine (load average 30) one size took 60 s.
    150_000,
  )
})

describe('screens of the demo: twelve live chains and events', () => {
  const startConsole = useTestConsole({ per: 'file' })
  const tempDir = useTempDir('watchdesk-test-', { per: 'file' })
  let running: RunningConsole
  let demo: Demo | undefined
  beforeAll(async () => {
    demo = unwrap(await startDemo({ dataDir: tempDir() }))
    running = await startConsole({
      dataDir: demo.dataDir,
      configFile: demo.configFile,
      secrets: demo.secrets,
      rendererDir,
      demo: true,
    })
    await demo.sendEvents(running.backend.services.webhooks.address().url!, silentLogger, 60_000)
    // Until most chains have a status from their nodes (anvil mines every 1–12 s).
    await waitFor(
      async () => {
        const chains = (await callApi(running, 'chains.list')).json.value.chains as { status: string }[]
        return chains.filter((c) => c.status === 'healthy').length >= 10
      },
      'ten of the twelve demo chains healthy',
      { timeoutMs: 30_000, intervalMs: 250 },
    )
  })
  afterAll(async () => {
    // As before: the demo's nodes stop first, the console after the file (useTestConsole).
    await demo?.stop()
  })

  it.each(viewports.map((v) => ({ ...v, size: sizeName(v) })))(
    'shows every view at $size without overflow, labelled a demo, no name or balance cut',
    async (viewport) => {
      await reviewViews(
        await openPage(pageSize(viewport)),
        running,
        viewport,
        'demo',
        async (page, route) => {
          // Labelled a demo on every view, and no red "missing" item greets its user.
          expect(await page.locator('.sidebar .demo-tag').textContent()).toBe('demo')
          if (route.id === 'overview')
            expect(await page.locator('.demo-banner').textContent()).toContain(
              'Nothing here touches a real account',
            )
          expect(await page.locator('.first-run-missing').count()).toBe(0)
          if (route.id === 'wallets')
            await expect
              .poll(() => page.locator('table.wallets-table tbody tr').count(), { timeout: 10_000 })
              .toBe(3)
          // No chain name and no balance cut, at any size (scrollWidth ≤ clientWidth).
          if (route.id === 'overview') expect(await clippedCells(page, '.chain-strip-name')).toEqual([])
          if (route.id === 'wallets') expect(await clippedCells(page, 'table.wallets-table .num')).toEqual([])
          if (route.id === 'settings')
            await expect
              .poll(() => page.locator('table.endpoints-table tbody tr').allTextContents(), {
                timeout: 10_000,
              })
              .toEqual([expect.stringContaining('demo')])
          if (route.id !== 'chains') return
          const rows = await page.locator('main.content .status').allTextContents()
          expect(
            rows.filter((t) => /healthy|lagging|stalled|down|wrong network|checking/.test(t)).length,
          ).toBe(12)
        },
      )
    },
    // Six views with their checks; on a loaded machine (load average 30) one size took 60 s.
    150_000,
  )
})
