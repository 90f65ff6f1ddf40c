import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, dialog, ipcMain, Menu, Notification, session, shell } from 'electron'
import type { BrowserWindow, MenuItemConstructorOptions } from 'electron'
import { resolveDataDir } from './config'
import { startBackend } from './backend'
import type { Backend } from './backend'
import { bindIpc, forwardPushes, isOwnRenderer } from './transport/ipc'
import { build, version } from './version'
import { createAttention } from './desktop/attention'
import { aboutText, applicationMenu, closeAction, views } from './desktop/menus'
import type { DesktopNotification } from './desktop/notifications'
import { createMainWindow, desktopCsp } from './desktop/shell/window'
import { createTray } from './desktop/shell/tray'

/** The Electron shell: window, tray, menu, notifications, IPC binding and hardening. The decisions
 * live in ./desktop (plain modules, tested under Node); everything else behind startBackend. */

const rendererIndex = join(import.meta.dirname, '../renderer/index.html')
const preload = join(import.meta.dirname, '../preload/index.cjs')
/** `npm run dev` only: an installed app never loads a URL from its environment. */
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL
declare const __WATCHDESK_DEV_CSP__: string | null
/** Only `npm run dev` has a dev CSP (inline styles for Vite's hot CSS); a build has none. */
const csp = devServerUrl && __WATCHDESK_DEV_CSP__ ? __WATCHDESK_DEV_CSP__ : desktopCsp
let backend: Backend | null = null
let mainWindow: BrowserWindow | null = null
let tray: ReturnType<typeof createTray> | null = null
let attention: ReturnType<typeof createAttention> | null = null
let quitting = false

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => showWindow())
  // A window hidden to the tray is not closed, so this fires only when closing really closed it.
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  app.on('activate', () => showWindow())
  app.on('before-quit', () => {
    quitting = true
  })
  app.on('will-quit', (event) => {
    if (!backend) return
    const closing = backend
    backend = null
    event.preventDefault()
    void closing.close().finally(() => app.quit())
  })
  // Windows shows notifications only for an app with this id (the installer registers the same one).
  if (process.platform === 'win32') app.setAppUserModelId('dev.watchdesk.console')
  app.setAboutPanelOptions({ applicationName: 'watchdesk', applicationVersion: version, version: build })
  void app.whenReady().then(start)
}

/** Electron's security checklist for everything the app opens: no permission is ever granted, the
 * CSP header is set on every response, no navigation, no new windows, no webviews. */
function harden(): void {
  session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false))
  session.defaultSession.setPermissionCheckHandler(() => false)
  session.defaultSession.setDevicePermissionHandler(() => false)
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } })
  })
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault())
    contents.on('will-attach-webview', (event) => event.preventDefault())
    contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  })
}

async function start(): Promise<void> {
  harden()
  const started = await startBackend({ dataDir: resolveDataDir(undefined), shell: 'electron' })
  if (!started.ok) {
    dialog.showErrorBox('watchdesk cannot start', started.error.message)
    app.exit(1)
    return
  }
  backend = started.value
  const { context } = backend
  bindIpc({
    ipcMain,
    handlers: backend.handlers,
    isTrustedSender: isOwnRenderer(pathToFileURL(rendererIndex).href, devServerUrl),
    log: context.log,
  })
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      applicationMenu({
        platform: process.platform,
        appName: 'watchdesk',
        packaged: app.isPackaged,
        actions: { about: showAbout, openDataDir: () => void shell.openPath(context.dataDir), showView },
      }) as MenuItemConstructorOptions[],
    ),
  )
  tray = createTray({ open: showWindow, quit: () => app.quit() })
  attention = createAttention({
    patterns: () => context.config().notifications.eventTypes,
    windowFocused: () => Boolean(mainWindow?.isVisible() && mainWindow.isFocused()),
    showTray: (state) => tray?.show(state),
    notify,
    log: context.log,
  })
  context.push.subscribe((message) => attention?.handle(message))
  // The tray starts from the chains' current statuses, not only from the next poll's push.
  void backend.handlers['chains.list']({}).then(
    (r) => r.ok && attention?.handle({ topic: 'chains.status', payload: r.value }),
  )
  mainWindow = openWindow(backend)
}

function openWindow({ context }: Backend): BrowserWindow {
  const win = createMainWindow({
    dataDir: context.dataDir,
    preload,
    log: context.log,
    load: (w) => void (devServerUrl ? w.loadURL(devServerUrl) : w.loadFile(rendererIndex)),
  })
  const stopForwarding = forwardPushes(context.push, win.webContents)
  win.on('focus', () => attention?.markSeen())
  win.on('close', (event) => {
    const closeToTray = context.config().desktop.closeToTray
    if (closeAction({ closeToTray, quitting, trayShown: tray !== null }) === 'hide') {
      event.preventDefault()
      win.hide()
    }
  })
  win.on('closed', () => {
    stopForwarding.dispose()
    if (mainWindow === win) mainWindow = null
  })
  return win
}

function showWindow(): void {
  if (!backend) return
  mainWindow ??= openWindow(backend)
  if (mainWindow.isMinimized()) mainWindow.restore()
  mainWindow.show()
  mainWindow.focus()
}

const routes = new Set<string>(views.map(([route]) => route))
function showView(route: string): void {
  showWindow()
  if (routes.has(route)) void mainWindow?.webContents.executeJavaScript(`location.hash = '#/${route}'`)
}

function notify(n: DesktopNotification): void {
  if (!Notification.isSupported()) return
  const notification = new Notification({
    title: n.title,
    body: n.body,
    urgency: n.urgency,
    silent: n.urgency !== 'critical',
  })
  notification.on('click', () => showView(n.route))
  notification.show()
}

function showAbout(): void {
  if (process.platform === 'darwin') return app.showAboutPanel()
  const text = aboutText({
    appName: 'watchdesk',
    version,
    build,
    electron: process.versions.electron,
    chrome: process.versions.chrome,
    node: process.versions.node,
  })
  const options = {
    type: 'info' as const,
    title: 'About watchdesk',
    message: text.title,
    detail: text.detail,
    buttons: ['OK'],
  }
  void (mainWindow ? dialog.showMessageBox(mainWindow, options) : dialog.showMessageBox(options))
}
