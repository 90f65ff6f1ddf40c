// Loads the BUILT shell (out/main/index.js) under Node with 'electron' resolved to the stand-in,
// exercises what an attacker or an operator would, and prints one JSON report on stdout.
import { registerHooks } from 'node:module'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'
import { existsSync, readFileSync } from 'node:fs'

const standIn = new URL('./electron.mjs', import.meta.url).href
registerHooks({
  resolve: (specifier, context, next) =>
    specifier === 'electron' ? { url: standIn, shortCircuit: true } : next(specifier, context),
})

const [mainBundle] = process.argv.slice(2)
const { app } = await import(standIn)
const record = globalThis.electronStandIn
await import(pathToFileURL(mainBundle).href)
app.ready()

const until = async (what, test) => {
  for (let i = 0; i < 400; i++) {
    if (test()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`timed out waiting for ${what}; calls: ${record.calls.join(' | ')}`)
}
await until(
  'the main window and the tray',
  () => record.windows.length === 1 && record.trays[0]?.tooltip?.includes('chains:'),
)
const win = record.windows[0]
const report = {}

const prevented = (emitter, name, ...args) => {
  let p = false
  emitter.emit(name, { preventDefault: () => (p = true) }, ...args)
  return p
}

report.webPreferences = { ...win.options.webPreferences }
report.preloadExists = existsSync(win.options.webPreferences.preload)
report.icon = win.options.icon ? { exists: existsSync(win.options.icon) } : null
report.loaded = win.loaded
report.navigationPrevented = prevented(win.webContents, 'will-navigate', 'https://evil.example/')
report.windowOpen = win.webContents.windowOpenHandler({ url: 'https://evil.example/' })
report.windowOpenFile = win.webContents.windowOpenHandler({ url: 'file:///etc/passwd' })
report.permissionGranted = await new Promise((resolve) =>
  record.session.permissionRequest({}, 'media', resolve, {}),
)
report.permissionCheck = record.session.permissionCheck({}, 'notifications', 'file://', {})
report.csp = await new Promise((resolve) =>
  record.session.headersReceived({ responseHeaders: { 'Content-Security-Policy': ['default-src *'] } }, (r) =>
    resolve(r.responseHeaders['Content-Security-Policy']),
  ),
)

// Any other web contents (a devtools or a stray webview): navigation and windows refused too.
const { EventEmitter } = await import('node:events')
const other = Object.assign(new EventEmitter(), {
  setWindowOpenHandler(h) {
    this.handler = h
  },
})
app.emit('web-contents-created', {}, other)
report.otherNavigationPrevented = prevented(other, 'will-navigate', 'https://evil.example/')
report.otherWindowOpen = other.handler?.({ url: 'https://evil.example/' })

// IPC: one handler per contract method, the page's own frame accepted, an iframe refused.
const indexUrl = pathToFileURL(join(mainBundle, '..', '..', 'renderer', 'index.html')).href
const health = record.ipc.get('watchdesk:call:app.health')
report.ipcChannels = [...record.ipc.keys()]
report.ipcOwn = await health({ senderFrame: { url: `${indexUrl}#/overview`, parent: null } }, {})
report.ipcIframe = await health({ senderFrame: { url: indexUrl, parent: {} } }, {})
report.ipcForeign = await health({ senderFrame: { url: 'https://evil.example/', parent: null } }, {})

// What the window asks for first: the first-run checklist and the listener's state.
const ownPage = { senderFrame: { url: `${indexUrl}#/overview`, parent: null } }
report.firstRun = await record.ipc.get('watchdesk:call:app.firstRun')(ownPage, {})
report.listenerStatus = await record.ipc.get('watchdesk:call:events.listener')(ownPage, {})

// Tray, menu and About.
const tray = record.trays[0]
report.trayTooltip = tray.tooltip
report.trayMenu = tray.menu.map((i) => i.label ?? i.type)
report.applicationMenu = record.applicationMenu.map((m) => m.label ?? m.role)
report.about = record.about

// Single instance: a second launch shows and focuses the window.
record.calls.length = 0
app.emit('second-instance', {}, [], '/')
report.secondInstance = [...record.calls]

// Closing hides to the tray (desktop.closeToTray defaults to true); the bounds are saved.
win.bounds = { x: 100, y: 80, width: 1500, height: 900 }
report.closePrevented = prevented(win, 'close')
report.visibleAfterClose = win.visible
if (!report.closePrevented) {
  // desktop.closeToTray is off: Electron would destroy the window, then emit window-all-closed.
  record.calls.length = 0
  win.emit('closed')
  app.emit('window-all-closed')
  report.afterRealClose = [...record.calls]
  process.stdout.write(JSON.stringify(report) + '\n')
  process.exit(0)
}
const stateFile = join(process.env.WATCHDESK_DATA_DIR, 'window-state.json')
report.windowState = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : null

// While the window is hidden, an alerting event arrives through the real listener: a desktop
// notification, and the tray counts it until the window is opened from the tray menu.
const sendTest = record.ipc.get('watchdesk:call:events.sendTest')
const ownFrame = { senderFrame: { url: indexUrl, parent: null } }
report.sendTest = await sendTest(ownFrame, { type: 'payout.failed' })
await sendTest(ownFrame, { type: 'funding.completed' })
await until('the notification', () => record.notifications.length > 0 && tray.tooltip.includes('unseen'))
await new Promise((r) => setTimeout(r, 400)) // a second batch would have arrived by now
report.notifications = record.notifications.map((n) => n.title)
report.trayWithUnseen = {
  tooltip: tray.tooltip,
  badge: record.badge,
  menu: tray.menu.map((i) => i.label ?? i.type),
}
tray.menu.find((i) => i.label === 'Open watchdesk').click()
report.trayAfterOpen = { tooltip: tray.tooltip, badge: record.badge, visible: win.visible }

// Tray menu "Quit": before-quit, then will-quit waits for the back end to close.
record.calls.length = 0
tray.menu.find((i) => i.label === 'Quit watchdesk').click()
app.emit('before-quit', { preventDefault() {} })
report.closeWhileQuittingPrevented = prevented(win, 'close')
report.willQuitPrevented = prevented(app, 'will-quit')
await until(
  'the back end to close and quit again',
  () => record.calls.filter((c) => c === 'app.quit').length >= 2,
)
report.quitCalls = [...record.calls]
process.stdout.write(JSON.stringify(report) + '\n')
process.exit(0)
