import { homedir } from 'node:os'
import { join } from 'node:path'
import { app, dialog, ipcMain, Menu, Notification, session, shell } from 'electron'
import type { BrowserWindow, MenuItemConstructorOptions, WebContents } from 'electron'
import { resolveDataDir } from './config'
import type { Backend } from './backend'
import { createFileLogger, createLogger, guardStderr, openLogFile } from './log'
import type { LogFile, Logger } from './log'
import { bindIpc, forwardPushes } from './transport/ipc'
import { build, version } from './version'
import {
  aboutText,
  allowPermission,
  applicationMenu,
  closeAction,
  closeWithin,
  createAttention,
  createMainWindow,
  createNotificationKeeper,
  createStartingGate,
  createTray,
  deepLinkInArgv,
  deepLinkRoute,
  desktopCsp,
  electronPaths,
  isAppMainFrame,
  trayHostAvailable,
  views,
} from './desktop'
import type { DesktopNotification, FrameLike } from './desktop'
import { DisposableStore, toDisposable } from '../shared/disposable'
import { deepLinkScheme } from '../shared/links'

/** The Electron shell: window, tray, menu, notifications, IPC binding and hardening. The decisions
 * live in ./desktop (plain modules, tested under Node); everything else behind startBackend.
 * Its edges catch everything: a failure while starting is one dialog naming the cause and the
 * fix, then exit; a failure later is logged and the app goes on; quitting always ends. */

const appId = 'dev.watchdesk.console'
/** Windows: a fixed toast activator, so a click on a notification in the Action Center still
 * reaches the app after it restarted (Electron otherwise makes up a new one each run). */
const toastActivatorClsid = '{6F1C2B0E-3A57-4C8F-9D21-7B5E0A4C9E13}'
const quitTimeoutMs = 5000
/** A call made while the back end starts waits this long before it is answered "starting". */
const startingHoldMs = 10_000
const startingTitle = 'watchdesk — starting…'

const rendererIndex = join(import.meta.dirname, '../renderer/index.html')
const preload = join(import.meta.dirname, '../preload/index.cjs')
/** `npm run dev` only: an installed app never loads a URL from its environment. */
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL
const devServerOrigin = devServerUrl ? new URL(devServerUrl).origin : null
declare const __WATCHDESK_DEV_CSP__: string | null
/** Only `npm run dev` has a dev CSP (inline styles for Vite's hot CSS); a build has none. */
const csp = devServerUrl && __WATCHDESK_DEV_CSP__ ? __WATCHDESK_DEV_CSP__ : desktopCsp

guardStderr()
const dataDir = resolveDataDir(undefined)
// Before the single-instance lock: Electron keeps that lock in userData.
const paths = electronPaths({
  platform: process.platform,
  env: process.env,
  home: homedir(),
  dataDir,
  defaultUserData: app.getPath('userData'),
})
if (paths) {
  app.setPath('userData', paths.userData)
  app.setPath('sessionData', paths.sessionData)
}

let logFile: LogFile | null = null
let log: Logger = createLogger()
let backend: Backend | null = null
let mainWindow: BrowserWindow | null = null
let tray: ReturnType<typeof createTray> | null = null
let trayVisible = false
let attention: ReturnType<typeof createAttention> | null = null
let quitting = false
let started = false
let failed = false
const gate = createStartingGate({ holdMs: startingHoldMs })
/** What the shell creates (tray, push forwarding, IPC handlers, timers), disposed once on quit. */
const disposables = new DisposableStore()
function disposeAll(): void {
  try {
    disposables.dispose()
  } catch (error) {
    log.warn('a disposer failed on quit', { error })
  }
}
const notifications = createNotificationKeeper((error) =>
  log.warn('a desktop notification could not be shown', { error }),
)

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  try {
    logFile = openLogFile(dataDir)
    log = createFileLogger(logFile)
  } catch (error) {
    log.warn('no log file: logging to stderr only', { dataDir, error: (error as Error).message })
  }
  process.on('uncaughtException', (error) => onUnexpected(error))
  process.on('unhandledRejection', (reason) => onUnexpected(reason))
  // Deep links (`watchdesk://open/#/events/evt_…`, from an alert): registered for this app; a second
  // launch carrying one hands it to this window (Windows, Linux); macOS sends open-url.
  app.setAsDefaultProtocolClient(deepLinkScheme)
  app.on('second-instance', (_event, argv) => {
    const route = deepLinkInArgv(argv)
    if (route) showLink(route)
    else showWindow()
  })
  app.on('open-url', (event, url) => {
    event.preventDefault()
    const route = deepLinkRoute(url)
    if (route) showLink(route)
  })
  // A window hidden to the tray is not closed, so this fires only when closing really closed it.
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  app.on('activate', () => showWindow())
  app.on('before-quit', () => {
    quitting = true
  })
  app.on('will-quit', (event) => {
    disposeAll()
    if (!backend) return logFile?.close()
    const closing = backend
    backend = null
    event.preventDefault()
    void closeBackend(closing).finally(() => app.quit())
  })
  // Windows shows notifications only for an app with this id (the installer registers the same one).
  if (process.platform === 'win32') {
    app.setAppUserModelId(appId)
    app.setToastActivatorCLSID(toastActivatorClsid)
  }
  app.setAboutPanelOptions({
    applicationName: 'watchdesk',
    applicationVersion: version,
    version: build,
    credits: `Data folder: ${dataDir}`,
  })
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) =>
      failStart(`The shell failed while starting: ${describe(error)}. Please report it.`),
    )
}

/** Electron's security checklist for everything the app opens: no permission is granted but the
 * clipboard write of the app's own top frame, the CSP header is set on every response, no
 * navigation, no new windows, no webviews. */
function harden(): void {
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) =>
    callback(
      allowPermission({
        permission,
        fromAppWindow: isAppPage(contents, details.requestingUrl),
        isMainFrame: details.isMainFrame,
      }),
    ),
  )
  session.defaultSession.setPermissionCheckHandler((contents, permission, _origin, details) =>
    allowPermission({
      permission,
      fromAppWindow: isAppPage(contents, details.requestingUrl),
      isMainFrame: details.isMainFrame,
    }),
  )
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

/** The main window's web contents showing the app's own page. */
function isAppPage(contents: WebContents | null, url: string | undefined): boolean {
  if (!contents || !mainWindow || mainWindow.isDestroyed() || contents !== mainWindow.webContents)
    return false
  try {
    const page = new URL(url ?? '')
    return devServerOrigin ? page.origin === devServerOrigin : page.protocol === 'file:'
  } catch {
    return false
  }
}

/** Window first: the IPC handlers and the window exist before the back end starts (the keychain
 * may ask to be unlocked); calls wait at the starting gate until it is ready. */
async function start(): Promise<void> {
  harden()
  disposables.add(
    bindIpc({
      ipcMain,
      handlers: gate.handlers,
      isTrustedSender: (frame) =>
        isAppMainFrame(
          frame as FrameLike,
          mainWindow && !mainWindow.isDestroyed() ? (mainWindow.webContents.mainFrame as FrameLike) : null,
          devServerOrigin,
        ),
      log,
    }),
  )
  mainWindow = openWindow()
  const [result, trayHost] = await Promise.all([
    // Imported once the window is open: the back end (with the metrics libraries, zod and every
    // capability) is most of the main bundle, and the window shows "starting" meanwhile.
    import('./backend').then(({ startBackend }) => startBackend({ dataDir, shell: 'electron', log })),
    trayHostAvailable(process.platform, process.env),
  ])
  if (!result.ok) return failStart(result.error.message)
  backend = result.value
  const { context } = backend
  trayVisible = trayHost
  if (!trayHost) log.info('no tray host on this desktop: closing the window quits watchdesk')
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
  disposables.add(toDisposable(() => tray?.destroy()))
  attention = createAttention({
    patterns: () => context.config().alerts.eventTypes,
    windowFocused: () => Boolean(mainWindow?.isVisible() && mainWindow.isFocused()),
    showTray: (state) => tray?.show(state),
    notify,
    log: context.log,
  })
  disposables.add(context.push.subscribe((message) => attention?.handle(message)))
  disposables.add(toDisposable(() => notifications.clear()))
  // The tray starts from the chains' current statuses, not only from the next poll's push.
  void backend.handlers['chains.list']({}).then(
    (r) => r.ok && attention?.handle({ topic: 'chains.status', payload: r.value }),
  )
  // …and the glance's other facts from their current answers (the pushes follow changes only).
  const { handlers } = backend
  void handlers['alerts.incidents']({ open: true, limit: 1000 }).then(
    (r) =>
      r.ok &&
      attention?.handle({ topic: 'alerts.changed', payload: { openIncidents: r.value.incidents.length } }),
  )
  void handlers['events.listener']({}).then(
    (r) => r.ok && attention?.handle({ topic: 'events.listener', payload: r.value }),
  )
  void handlers['forward.status']({}).then(
    (r) => r.ok && attention?.handle({ topic: 'forward.status', payload: r.value }),
  )
  void handlers['sources.list']({}).then(
    (r) => r.ok && attention?.handle({ topic: 'sources.status', payload: r.value }),
  )
  void handlers['payments.publicUrl.state']({}).then(
    (r) => r.ok && attention?.handle({ topic: 'payments.publicUrl', payload: r.value }),
  )
  gate.open(backend.handlers)
  started = true
  if (mainWindow && !mainWindow.isDestroyed()) {
    attachWindow(mainWindow, backend)
    mainWindow.setTitle('watchdesk')
    // A page that was told "starting" reloads now, rather than showing that until it is reopened.
    if (gate.answeredStarting() > 0) mainWindow.webContents.reload()
    // Started by a deep link: open the place it points at.
    const launchRoute = deepLinkInArgv(process.argv)
    if (launchRoute) showLink(launchRoute)
  }
  log.info('watchdesk desktop started', { dataDir, logFile: log.file })
}

function openWindow(): BrowserWindow {
  const win = createMainWindow({
    dataDir,
    preload,
    log,
    title: backend ? 'watchdesk' : startingTitle,
    load: (w) => void (devServerUrl ? w.loadURL(devServerUrl) : w.loadFile(rendererIndex)),
  })
  // The page's <title> would replace "starting…" as soon as it loads.
  win.on('page-title-updated', (event) => {
    if (!backend) event.preventDefault()
  })
  win.on('focus', () => attention?.markSeen())
  win.on('close', (event) => {
    const closeToTray = backend?.context.config().desktop.closeToTray ?? false
    // Never hide the last window when no tray icon is visible: nothing would bring it back.
    if (closeAction({ closeToTray, quitting, trayShown: tray !== null && trayVisible }) === 'hide') {
      event.preventDefault()
      win.hide()
    }
  })
  // Windows does not emit will-quit at shutdown or log-off: close the back end (and so release
  // the data dir) here too.
  win.on('session-end', () => {
    const closing = backend
    backend = null
    disposeAll()
    if (closing) void closeBackend(closing)
  })
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null
  })
  if (backend) attachWindow(win, backend)
  return win
}

/** Pushes reach the window once the back end runs, until the window closes. */
function attachWindow(win: BrowserWindow, running: Backend): void {
  const forwarding = forwardPushes(running.context.push, win.webContents)
  win.once('closed', () => forwarding.dispose())
}

function showWindow(): void {
  if (!started && mainWindow === null) return
  mainWindow ??= openWindow()
  if (mainWindow.isMinimized()) mainWindow.restore()
  mainWindow.show()
  mainWindow.focus()
}

const routes = new Set<string>(views.map(([route]) => route))
function showView(route: string): void {
  if (routes.has(route)) showLink(`#/${route}`)
  else showWindow()
}

/** `route` is rebuilt from a parsed target (src/shared/links.ts), so only known shapes get here. */
function showLink(route: string): void {
  showWindow()
  void mainWindow?.webContents.executeJavaScript(`location.hash = ${JSON.stringify(route)}`)
}

function notify(n: DesktopNotification): void {
  if (!Notification.isSupported()) return
  const critical = n.urgency === 'critical'
  notifications.show(
    new Notification({
      title: n.title,
      body: n.body,
      urgency: n.urgency,
      silent: !critical,
      // Only what must stay on screen stays (Windows and Linux); the rest times out as usual.
      timeoutType: critical ? 'never' : 'default',
    }),
    () => showLink(n.link),
  )
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
    dataDir,
    logFile: log.file,
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

/** Quit must end: the back end gets quitTimeoutMs to close, whatever it does. */
async function closeBackend(closing: Backend): Promise<void> {
  const closed = await closeWithin(() => closing.close(), quitTimeoutMs)
  if (closed.outcome === 'timed-out')
    log.warn(`the back end did not close within ${quitTimeoutMs / 1000} s; quitting anyway`)
  if (closed.outcome === 'failed')
    log.error('the back end failed while closing; quitting anyway', { error: closed.error })
  logFile?.close()
}

/** A failure before the app is up: one dialog with the cause and the fix, then exit. */
function failStart(message: string): void {
  if (failed) return
  failed = true
  gate.fail(message)
  log.error('watchdesk could not start', { message })
  const where = log.file ? `\n\nThe log is ${log.file}.` : ''
  dialog.showErrorBox('watchdesk cannot start', `${message}${where}`)
  // IPC stays bound: a page still asking gets this sentence rather than "starting" until exit.
  const running = backend
  backend = null
  if (!running) return app.exit(1)
  void closeBackend(running).finally(() => app.exit(1))
}

/** Anything thrown at the shell's edges: fatal while starting, logged once the app is up. */
function onUnexpected(error: unknown): void {
  if (!started)
    return failStart(`An unexpected error stopped the start: ${describe(error)}. Please report it.`)
  log.error('unexpected error (the app goes on)', { error })
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
