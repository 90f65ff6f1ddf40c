import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { desktopCsp } from '../../../src/main/desktop/window'
import { startingMessage } from '../../../src/main/desktop/starting-gate'
import { methodNames, ipcChannel } from '../../../src/shared/contract'
import { useTempDir } from '../../support/temp'
import { occupyPort } from '../../support/ports'

/** Runs the BUILT shell (out/main/index.js) under Node with a stand-in for Electron's modules
 * (./electron-standin): the real back end starts behind it (SQLite, keychain held at a gate the
 * driver opens, listener on port 0), and the driver plays attacker and operator against what the
 * shell registered. */
const root = join(import.meta.dirname, '..', '..', '..')
const builtMain = join(root, 'out', 'main', 'index.js')
const standIn = join(import.meta.dirname, 'electron-standin')

interface Run {
  dataDir: string
  config?: Record<string, unknown>
  scenario?: 'full' | 'close' | 'fail' | 'session-end' | 'outage'
  /** Put the stand-in dbus-send on PATH: a StatusNotifierWatcher answers, so a tray is visible. */
  trayHost?: boolean
  mainBundle?: string
  env?: Record<string, string>
  /** Close the read end of the shell's stderr at once, as a closed launching terminal does. */
  closeStderr?: boolean
}

async function runBuiltShell(run: Run): Promise<any> {
  const mainBundle = run.mainBundle ?? builtMain
  if (!existsSync(mainBundle))
    throw new Error(`${mainBundle} is missing: run "npx electron-vite build" first.`)
  if (run.config) writeFileSync(join(run.dataDir, 'config.json'), JSON.stringify(run.config))
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('WATCHDESK_') && k !== 'ELECTRON_RENDERER_URL'),
  )
  const child = spawn(process.execPath, [join(standIn, 'run-shell.mjs'), mainBundle], {
    env: {
      ...env,
      PATH: run.trayHost ? `${join(standIn, 'tray-host')}:${process.env.PATH}` : process.env.PATH!,
      WATCHDESK_DATA_DIR: run.dataDir,
      WATCHDESK_WEBHOOK_SECRETS: 'whsec_desktopshelltest0123456789',
      STANDIN_SCENARIO: run.scenario ?? 'full',
      ...run.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A guard against a hung run, above the hooks' and tests' own limits at load 20-25.
    timeout: 100_000,
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  if (run.closeStderr) child.stderr.destroy()
  else child.stderr.on('data', (d) => (stderr += d))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0) throw new Error(`the shell driver exited with ${code}: ${stderr}\n${stdout}`)
  return JSON.parse(stdout.trim().split('\n').at(-1)!)
}

/** A run made once, by the first test that awaits it, for tests that each assert their own part of
 * the same report. */
function sharedRun<T>(make: () => Promise<T>): () => Promise<T> {
  let run: Promise<T> | undefined
  return () => (run ??= make())
}

const fileTempDir = useTempDir('watchdesk-built-shell-', { per: 'file' })

/** One run of the close scenario for two tests: installed under a path with % and spaces, its
 * stderr closed at once as a closed launching terminal does. */
const closedUnderPercentPathWithoutStderr = sharedRun(() => {
  const install = join(fileTempDir(), 'Apps 100% local', 'watchdesk')
  mkdirSync(install, { recursive: true })
  cpSync(join(root, 'out'), join(install, 'out'), { recursive: true })
  symlinkSync(join(root, 'node_modules'), join(install, 'node_modules'), 'dir')
  return runBuiltShell({
    dataDir: fileTempDir(),
    mainBundle: join(install, 'out', 'main', 'index.js'),
    scenario: 'close',
    config: { listener: { port: 0 } },
    closeStderr: true,
  })
})

describe('the built desktop shell under a stand-in for Electron', () => {
  const tempDir = useTempDir()
  let report: any
  let dataDir: string

  beforeAll(async () => {
    dataDir = tempDir()
    report = await runBuiltShell({ dataDir, config: { listener: { port: 0 } }, trayHost: true })
    // The full scenario's run took over 30 s at load 22 (session 13).
  }, 120_000)

  it('shows the window at once, "starting…", and holds the first call until the back end is ready', () => {
    expect(report.whileStarting).toEqual({
      visible: true,
      title: 'watchdesk — starting…',
      ipcBound: methodNames.length,
      titleUpdatePrevented: true,
      healthAnswered: false,
    })
    expect(report.healthOnceStarted).toMatchObject({ ok: true, value: { status: 'ok', shell: 'electron' } })
    expect(report.titleOnceStarted).toBe('watchdesk')
    expect(report.titleUpdateOnceStarted).toBe(false)
    // Nothing was answered "starting", so the page is not reloaded.
    expect(report.reloaded).toBe(false)
  })

  it('writes its log to watchdesk.log in the data dir (0600) and names it and the data dir in app status', () => {
    expect(report.log.mode).toBe('600')
    expect(report.log.started).toHaveLength(1)
    expect(report.log.started[0]).toMatchObject({ dataDir, logFile: join(dataDir, 'watchdesk.log') })
    expect(report.healthOnceStarted.value).toMatchObject({ dataDir, logFile: join(dataDir, 'watchdesk.log') })
    expect(report.about.credits).toBe(`Data folder: ${dataDir}`)
  })

  it('opens its own index.html in a sandboxed, isolated window with the built preload', () => {
    expect(report.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    })
    expect(report.webPreferences.preload).toBe(join(root, 'out', 'preload', 'index.cjs'))
    expect(report.preloadExists).toBe(true)
    expect(report.icon).toEqual(process.platform === 'linux' ? { exists: true } : null)
    expect(report.loaded).toEqual({ file: join(root, 'out', 'renderer', 'index.html') })
  })

  it('places a new window on the primary display, which is not the first display listed', () => {
    // The stand-in's primary display is 1920x1080 at 0,0; the first listed one is left of it.
    expect(report.bounds).toEqual({ x: 320, y: 140 })
  })

  it('refuses navigation and new windows in any web contents', () => {
    expect(report.navigationPrevented).toBe(true)
    expect(report.windowOpen).toEqual({ action: 'deny' })
    expect(report.windowOpenFile).toEqual({ action: 'deny' })
    expect(report.otherNavigationPrevented).toBe(true)
    expect(report.otherWindowOpen).toEqual({ action: 'deny' })
  })

  it("grants exactly the clipboard write, and only to the app window's top frame", () => {
    expect(report.permissions).toEqual({
      clipboardWrite: true,
      clipboardWriteIframe: false,
      clipboardWriteOtherContents: false,
      clipboardWriteRemotePage: false,
      clipboardRead: false,
      media: false,
      notifications: false,
      checkClipboardWrite: true,
      checkClipboardWriteIframe: false,
      checkClipboardRead: false,
      checkNotifications: false,
    })
  })

  it('replaces any CSP header of a response with its own', () => {
    expect(report.csp).toEqual([desktopCsp])
  })

  it('binds one IPC handler per contract method and answers only the main frame of its window', () => {
    expect(report.ipcChannels.sort()).toEqual(methodNames.map(ipcChannel).sort())
    expect(report.ipcOwn).toMatchObject({ ok: true, value: { status: 'ok', shell: 'electron' } })
    for (const refused of ['ipcIframe', 'ipcLookalike', 'ipcLookalikeByFileUrl', 'ipcMainFrameRemote'])
      expect(report[refused].error?.code, refused).toBe('forbidden')
  })

  it('has the application menu and About with version and build', () => {
    expect(report.applicationMenu).toEqual(['File', 'Edit', 'View', 'Go', 'windowMenu', 'Help'])
    expect(report.about).toMatchObject({ applicationName: 'watchdesk', applicationVersion: '0.1.0' })
    expect(report.about.version).not.toBe('dev')
  })

  it("starts the tray from the chains' current statuses, with open and quit in its menu", () => {
    // The same one-line summary as the Overview's (src/shared/glance.ts).
    expect(report.trayTooltip).toBe(
      'watchdesk\nno incidents · no chains configured · 0 events/min\nset rpcBaseUrl and the project uid to watch chains',
    )
    expect(report.trayMenu).toEqual([
      'no incidents · no chains configured · 0 events/min',
      'separator',
      'Open watchdesk',
      'Quit watchdesk',
    ])
  })

  it('focuses the first window on a second launch', () => {
    expect(report.secondInstance).toEqual(['win.show', 'win.focus'])
  })

  it('hides to the visible tray on close and remembers the window bounds in the data dir', () => {
    expect(report.closePrevented).toBe(true)
    expect(report.visibleAfterClose).toBe(false)
    expect(report.windowState).toEqual({ x: 100, y: 80, width: 1500, height: 900, maximized: false })
  })

  it('notifies alerting events through their alerts (desktop channel), kept until clicked, closed or failed, as normal urgency', () => {
    expect(report.sendTest.ok).toBe(true)
    expect(report.notifications).toEqual([
      { title: 'payout.failed', urgency: 'normal', silent: true },
      { title: 'funding.failed', urgency: 'normal', silent: true },
    ])
    expect(report.notificationHandlers).toEqual([
      [1, 1, 1],
      [1, 1, 1],
    ])
    expect(report.notificationClick).toEqual([
      'win.show',
      'win.focus',
      expect.stringMatching(/^executeJavaScript location\.hash = "#\/events\/evt_\w+"$/),
    ])
  })

  it('counts alerting events in the tray until the window is opened, rebuilding it only when it changes', () => {
    // Events per minute counts the test events the listener stored (1 to 3 by the time it is read).
    const line = /^no incidents · no chains configured · [1-3] events\/min$/
    expect(report.trayWithUnseen.badge).toBe(2)
    expect(report.trayWithUnseen.tooltip.split('\n')).toEqual([
      'watchdesk',
      expect.stringMatching(line),
      'set rpcBaseUrl and the project uid to watch chains',
      '2 unseen alerting events',
    ])
    expect(report.trayWithUnseen.menu).toEqual([
      expect.stringMatching(line),
      '2 unseen alerting events',
      'separator',
      'Open watchdesk',
      'Quit watchdesk',
    ])
    expect(report.trayAfterOpen.badge).toBe(0)
    expect(report.trayAfterOpen.visible).toBe(true)
    expect(report.trayAfterOpen.tooltip.split('\n')).toEqual([
      'watchdesk',
      expect.stringMatching(line),
      'set rpcBaseUrl and the project uid to watch chains',
    ])
    // The icon changes with the level only (idle, amber while unseen, idle again); the tooltip is
    // handed to Electron only when its words change (the listener pushes every second).
    expect(report.trayUpdates.image).toBe(3)
    const tooltips: string[] = report.trayTooltips
    expect(tooltips.filter((t, i) => i > 0 && t === tooltips[i - 1])).toEqual([])
    expect(report.trayUpdates.tooltip).toBe(tooltips.length)
  })

  it('shows nothing for an alert muted from the console, and records it as muted', () => {
    expect(report.mutedAlerts).toEqual([['event.type', 'payout.failed', 'desktop']])
    expect(report.notificationsAfterMute).toBe(2)
  })

  it('quits from the tray menu, closing the back end before it exits and disposing the tray and IPC', () => {
    expect(report.closeWhileQuittingPrevented).toBe(false)
    expect(report.willQuitPrevented).toBe(true)
    expect(report.quitCalls).toEqual(['app.quit', 'tray.destroy', 'app.quit'])
    expect(report.ipcAfterQuit).toBe(0)
    expect(report.lockAfterQuit).toBe(false)
  })
})

describe('the built desktop shell during a chain outage', () => {
  const tempDir = useTempDir()
  // A node that answers every request with HTTP 503.
  const node = createServer((_req, res) => res.writeHead(503).end('unavailable'))
  let url: string
  beforeAll(async () => {
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', () => r()))
    url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((r) => (node.closeAllConnections(), node.close(() => r()))))
  // Down at the first failed poll, so the raw status push and the alert come at once.
  const chains = () => ({ '137': { url, confirmFailures: 1, pollIntervalMs: 250 } })

  it('shows one notification for one outage: the alert, not the raw status change', async () => {
    const report = await runBuiltShell({
      dataDir: tempDir(),
      scenario: 'outage',
      config: { listener: { port: 0 }, chains: chains() },
    })
    expect(report.alertLog).toEqual([['chain.down', 'fired', 'desktop', 'sent']])
    expect(report.notifications).toEqual([{ title: 'Polygon down', urgency: 'critical' }])
  })

  it('shows none for an outage inside a maintenance window', async () => {
    const report = await runBuiltShell({
      dataDir: tempDir(),
      scenario: 'outage',
      config: {
        listener: { port: 0 },
        chains: chains(),
        alerts: { mute: [{ from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z', chains: [137] }] },
      },
    })
    expect(report.alertLog).toEqual([['chain.down', 'fired', 'desktop', 'muted']])
    expect(report.notifications).toEqual([])
  })
})

describe('the built desktop shell closing its window', () => {
  const tempDir = useTempDir('watchdesk-built-shell-', { per: 'file' })
  // One run for two tests (each run is a process with a back end, about a CPU-second): the
  // listener's port taken, desktop.closeToTray off, a visible tray.
  const portTakenAndNoCloseToTray = sharedRun(async () => {
    const squatter = await occupyPort()
    try {
      const report = await runBuiltShell({
        dataDir: tempDir(),
        scenario: 'close',
        trayHost: true,
        config: { listener: { port: squatter.port }, desktop: { closeToTray: false } },
      })
      return { report, port: squatter.port }
    } finally {
      squatter.close()
    }
  })

  it('opens with the listener port taken, its first-run check naming the port, the cause and the fix', async () => {
    const { report: taken, port } = await portTakenAndNoCloseToTray()
    expect(taken.listenerStatus.value).toMatchObject({ listening: false, url: null })
    expect(taken.listenerStatus.value.problem).toMatch(
      new RegExp(
        `^Port ${port} on 127\\.0\\.0\\.1 is in use \\(another watchdesk\\?\\)\\. Stop it, or set listener\\.port`,
      ),
    )
    const listener = taken.firstRun.value.checks.find((c: { id: string }) => c.id === 'listener')
    expect(listener.state).toBe('missing')
    expect(listener.detail).toContain(`Port ${port} on 127.0.0.1 is in use (another watchdesk?).`)
    expect(listener.fix).toContain('set listener.port / --listener-port')
    expect(listener.fix).toContain(`lsof -i :${port}`)
    expect(taken.firstRun.value.complete).toBe(false)
  })

  it('quits when desktop.closeToTray is off', async () => {
    const { report } = await portTakenAndNoCloseToTray()
    expect(report.closePrevented).toBe(false)
    expect(report.afterRealClose).toEqual(['app.quit'])
  })

  it.runIf(process.platform === 'linux')(
    'quits on a Linux desktop without a tray host, though closeToTray is on: the window is never hidden for good',
    async () => {
      // The session bus of test/with-keychain.sh has no StatusNotifierWatcher, as stock GNOME.
      // Its own run: in the shared one below (under a % path, stderr closed) this test passed
      // with a tray host on the bus too.
      const report = await runBuiltShell({
        dataDir: tempDir(),
        scenario: 'close',
        config: { listener: { port: 0 } },
      })
      expect(report.closePrevented).toBe(false)
      expect(report.visibleAfterClose).toBe(true)
      expect(report.afterRealClose).toEqual(['app.quit'])
    },
  )
})

describe('the built desktop shell at its edges', () => {
  const tempDir = useTempDir()

  it('accepts IPC from its window when installed under a path with % and spaces', async () => {
    // Electron builds the page's URL with url.format: a bare '%' where pathToFileURL() writes %25,
    // so comparing the two strings refused every call from such an install.
    const report = await closedUnderPercentPathWithoutStderr()
    expect(report.pageUrl).toContain('/Apps%20100%%20local/')
    expect(report.indexFileUrl).toContain('/Apps%20100%25%20local/')
    expect(report.healthOnceStarted).toMatchObject({ ok: true, value: { status: 'ok' } })
    expect(report.firstRun.ok).toBe(true)
  })

  it('goes on logging to its file when the terminal that launched it is gone (EPIPE on stderr)', async () => {
    const report = await closedUnderPercentPathWithoutStderr()
    expect(report.log.mode).toBe('600')
    expect(report.log.started).toHaveLength(1)
    expect(report.afterRealClose).toEqual(['app.quit'])
  })

  it('shows one dialog with the cause and exits when the back end cannot start', async () => {
    const dir = tempDir()
    // The data dir's config is not valid JSON.
    writeFileSync(join(dir, 'config.json'), '{ not json')
    const report = await runBuiltShell({ dataDir: dir, scenario: 'fail' })
    expect(report.windowShown).toBe(true)
    expect(report.dialogs).toHaveLength(1)
    expect(report.dialogs[0]).toMatch(/^showErrorBox watchdesk cannot start: .*config\.json/s)
    expect(report.dialogs[0]).toContain(`The log is ${join(dir, 'watchdesk.log')}.`)
    expect(report.exits).toEqual(['app.exit 1'])
    expect(report.healthAfterFailure).toMatchObject({ ok: false, error: { code: 'unavailable' } })
    expect(report.healthAfterFailure.error.message).not.toBe(startingMessage)
    expect(report.lockLeft).toBe(false)
  })

  it('shows one dialog, closes the back end and exits when the shell itself throws while starting', async () => {
    const dataDir = tempDir()
    const report = await runBuiltShell({
      dataDir,
      config: { listener: { port: 0 } },
      env: { STANDIN_THROW: 'menu' },
    })
    expect(report.dialogs).toEqual([
      'showErrorBox watchdesk cannot start: The shell failed while starting: stand-in: Menu.buildFromTemplate failed. Please report it.' +
        `\n\nThe log is ${join(dataDir, 'watchdesk.log')}.`,
    ])
    expect(report.exits).toEqual(['app.exit 1'])
    expect(report.lockLeft).toBe(false)
  })

  it('closes the back end and releases the data dir when Windows ends the session', async () => {
    const report = await runBuiltShell({
      dataDir: tempDir(),
      scenario: 'session-end',
      config: { listener: { port: 0 } },
    })
    expect(report.lockBefore).toBe(true)
    expect(report.lockAfter).toBe(false)
    expect(report.trayDestroyed).toBe(true)
  })
})
