import { execFile } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { desktopCsp } from '../../../src/main/desktop/window'
import { methodNames, ipcChannel } from '../../../src/shared/contract'
import { useTempDir } from '../../support/temp'
import { occupyPort } from '../../support/ports'

/** Runs the BUILT shell (out/main/index.js) under Node with a stand-in for Electron's modules
 * (./electron-standin): the real back end starts behind it (SQLite, keychain, listener on port 0),
 * and the driver plays attacker and operator against what the shell registered. */
const root = join(import.meta.dirname, '..', '..', '..')
const mainBundle = join(root, 'out', 'main', 'index.js')

async function runBuiltShell(dataDir: string, config: Record<string, unknown>): Promise<any> {
  if (!existsSync(mainBundle))
    throw new Error(`${mainBundle} is missing: run "npx electron-vite build" first.`)
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify(config))
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('WATCHDESK_') && k !== 'ELECTRON_RENDERER_URL'),
  )
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(import.meta.dirname, 'electron-standin', 'run-shell.mjs'), mainBundle],
    {
      env: {
        ...env,
        WATCHDESK_DATA_DIR: dataDir,
        WATCHDESK_WEBHOOK_SECRETS: 'whsec_desktopshelltest0123456789',
      },
      timeout: 30_000,
    },
  )
  return JSON.parse(stdout.trim().split('\n').at(-1)!)
}

describe('the built desktop shell under a stand-in for Electron', () => {
  const tempDir = useTempDir()
  let report: any

  beforeAll(async () => {
    report = await runBuiltShell(tempDir(), { listener: { port: 0 } })
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

  it('refuses navigation, new windows and every permission request, in any web contents', () => {
    expect(report.navigationPrevented).toBe(true)
    expect(report.windowOpen).toEqual({ action: 'deny' })
    expect(report.windowOpenFile).toEqual({ action: 'deny' })
    expect(report.otherNavigationPrevented).toBe(true)
    expect(report.otherWindowOpen).toEqual({ action: 'deny' })
    expect(report.permissionGranted).toBe(false)
    expect(report.permissionCheck).toBe(false)
  })

  it('replaces any CSP header of a response with its own', () => {
    expect(report.csp).toEqual([desktopCsp])
  })

  it('binds one IPC handler per contract method and answers only its own page', () => {
    expect(report.ipcChannels.sort()).toEqual(methodNames.map(ipcChannel).sort())
    expect(report.ipcOwn).toMatchObject({ ok: true, value: { status: 'ok', shell: 'electron' } })
    expect(report.ipcIframe.error.code).toBe('forbidden')
    expect(report.ipcForeign.error.code).toBe('forbidden')
  })

  it('has the application menu and About with version and build', () => {
    expect(report.applicationMenu).toEqual(['File', 'Edit', 'View', 'Go', 'windowMenu', 'Help'])
    expect(report.about).toMatchObject({ applicationName: 'watchdesk', applicationVersion: '0.1.0' })
    expect(report.about.version).not.toBe('dev')
  })

  it("starts the tray from the chains' current statuses, with open and quit in its menu", () => {
    expect(report.trayTooltip).toBe('watchdesk\nchains: none configured (set rpcBaseUrl and the project uid)')
    expect(report.trayMenu).toEqual([
      'chains: none configured (set rpcBaseUrl and the project uid)',
      'separator',
      'Open watchdesk',
      'Quit watchdesk',
    ])
  })

  it('focuses the first window on a second launch', () => {
    expect(report.secondInstance).toEqual(['win.show', 'win.focus'])
  })

  it('hides to the tray on close and remembers the window bounds in the data dir', () => {
    expect(report.closePrevented).toBe(true)
    expect(report.visibleAfterClose).toBe(false)
    expect(report.windowState).toEqual({ x: 100, y: 80, width: 1500, height: 900, maximized: false })
  })

  it('notifies an alerting event received while hidden and counts it in the tray until the window is opened', () => {
    expect(report.sendTest.ok).toBe(true)
    expect(report.notifications).toEqual(['payout.failed'])
    expect(report.trayWithUnseen).toEqual({
      tooltip:
        'watchdesk\nchains: none configured (set rpcBaseUrl and the project uid)\n1 unseen alerting event',
      badge: 1,
      menu: [
        'chains: none configured (set rpcBaseUrl and the project uid)',
        '1 unseen alerting event',
        'separator',
        'Open watchdesk',
        'Quit watchdesk',
      ],
    })
    expect(report.trayAfterOpen).toEqual({
      tooltip: 'watchdesk\nchains: none configured (set rpcBaseUrl and the project uid)',
      badge: 0,
      visible: true,
    })
  })

  it('quits from the tray menu, closing the back end before it exits', () => {
    expect(report.closeWhileQuittingPrevented).toBe(false)
    expect(report.willQuitPrevented).toBe(true)
    expect(report.quitCalls).toEqual(['app.quit', 'app.quit'])
  })
})

describe('the built desktop shell with desktop.closeToTray off', () => {
  const tempDir = useTempDir()

  it('opens with the listener port taken, its first-run check naming the port, the cause and the fix', async () => {
    const squatter = await occupyPort()
    const { port } = squatter
    try {
      const taken = await runBuiltShell(tempDir(), { listener: { port }, desktop: { closeToTray: false } })
      expect(taken.loaded).toBeTruthy()
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
    } finally {
      squatter.close()
    }
  })

  it('quits when the window is closed', async () => {
    const report = await runBuiltShell(tempDir(), { listener: { port: 0 }, desktop: { closeToTray: false } })
    expect(report.closePrevented).toBe(false)
    expect(report.afterRealClose).toEqual(['app.quit'])
  })
})
