// Loads the BUILT shell (out/main/index.js) under Node with 'electron' resolved to the stand-in
// and keytar held at a gate (./gated-keytar.mjs), exercises what an attacker or an operator would,
// and prints one JSON report on stdout. STANDIN_SCENARIO picks the path:
//   full        window first, hardening, IPC, tray, notifications, close to tray, quit from the tray
//   close       closing the window (quits unless it hides to a visible tray)
//   fail        the back end cannot start: one dialog, then exit
//   session-end Windows shutdown: the back end closes and the data dir is released
//   outage      a configured chain is down: the notifications once its alert is recorded
import { registerHooks } from 'node:module'
import { pathToFileURL } from 'node:url'
import { join, resolve } from 'node:path'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { EventEmitter } from 'node:events'

const standIn = new URL('./electron.mjs', import.meta.url).href
const gatedKeytar = new URL('./gated-keytar.mjs', import.meta.url).href
registerHooks({
  resolve: (specifier, context, next) =>
    specifier === 'electron'
      ? { url: standIn, shortCircuit: true }
      : specifier === 'keytar'
        ? { url: gatedKeytar, shortCircuit: true }
        : next(specifier, context),
})

const mainBundle = resolve(process.argv[2])
const scenario = process.env.STANDIN_SCENARIO ?? 'full'
process.env.STANDIN_APP_ROOT = join(mainBundle, '..', '..', '..')
const { app } = await import(standIn)
const record = globalThis.electronStandIn
const gate = (globalThis.keytarGate ??= { ...Promise.withResolvers(), waiting: 0 })
await import(pathToFileURL(mainBundle).href)
app.ready()

const until = async (what, test) => {
  for (let i = 0; i < 400; i++) {
    if (test()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  // Not a throw: the shell's own uncaughtException handler would log it and go on.
  process.stderr.write(`timed out waiting for ${what}; calls: ${record.calls.join(' | ')}\n`)
  process.exit(2)
}
/** Asks an IPC method until its answer passes the test (the back end works on its own timers). */
const untilAnswer = async (what, method, params, test) => {
  const call = record.ipc.get(`watchdesk:call:${method}`)
  for (let i = 0; i < 400; i++) {
    const answer = await call({ senderFrame: record.windows[0].webContents.mainFrame }, params)
    if (test(answer)) return answer
    await new Promise((r) => setTimeout(r, 25))
  }
  process.stderr.write(`timed out waiting for ${what}; calls: ${record.calls.join(' | ')}\n`)
  process.exit(2)
}
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r))
}
const prevented = (emitter, name, ...args) => {
  let p = false
  emitter.emit(name, { preventDefault: () => (p = true) }, ...args)
  return p
}
const done = (report) => {
  process.stdout.write(JSON.stringify(report) + '\n')
  process.exit(0)
}
const dataDir = process.env.WATCHDESK_DATA_DIR
const report = { calls: record.calls }

if (scenario === 'fail') {
  // The data dir is unusable: the window is up, then one dialog and exit 1.
  await until('the exit', () => record.calls.some((c) => c.startsWith('app.exit')))
  const health = record.ipc.get('watchdesk:call:app.health')
  const win = record.windows[0]
  report.windowShown = win?.visible ?? false
  report.healthAfterFailure = health ? await health({ senderFrame: win.webContents.mainFrame }, {}) : null
  report.dialogs = record.calls.filter((c) => c.startsWith('showErrorBox'))
  report.exits = record.calls.filter((c) => c.startsWith('app.exit'))
  report.lockLeft = existsSync(join(dataDir, 'watchdesk.lock'))
  done(report)
}

// Window first: the window is shown and IPC answers while the keychain still holds the start.
await until(
  'the window, with the back end waiting on the keychain',
  () => record.windows.length === 1 && gate.waiting > 0,
)
const win = record.windows[0]
const health = record.ipc.get('watchdesk:call:app.health')
const mainFrame = () => ({ senderFrame: win.webContents.mainFrame })
report.whileStarting = {
  visible: win.visible,
  title: win.options.title,
  ipcBound: record.ipc.size,
  titleUpdatePrevented: prevented(win, 'page-title-updated', 'watchdesk'),
}
let healthSettled = false
const healthWhileStarting = health(mainFrame(), {}).then((r) => ((healthSettled = true), r))
await turns()
report.whileStarting.healthAnswered = healthSettled
gate.resolve()
report.healthOnceStarted = await healthWhileStarting
if (scenario === 'full') {
  // STANDIN_THROW=menu: the shell throws after the back end started.
  if (process.env.STANDIN_THROW) {
    await until('the exit', () => record.calls.some((c) => c.startsWith('app.exit')))
    report.dialogs = record.calls.filter((c) => c.startsWith('showErrorBox'))
    report.exits = record.calls.filter((c) => c.startsWith('app.exit'))
    report.lockLeft = existsSync(join(dataDir, 'watchdesk.lock'))
    done(report)
  }
}
await until('the tray', () => record.trays[0]?.tooltip?.startsWith('watchdesk\n'))
report.titleOnceStarted = win.title
report.pageUrl = win.webContents.mainFrame.url
report.indexFileUrl = pathToFileURL(join(mainBundle, '..', '..', 'renderer', 'index.html')).href
report.titleUpdateOnceStarted = prevented(win, 'page-title-updated', 'watchdesk')
report.reloaded = record.calls.includes('webContents.reload')
report.paths = { userData: app.getPath('userData'), sessionData: app.getPath('sessionData') }
report.toast = { appUserModelId: record.appUserModelId ?? null, clsid: record.toastActivatorClsid ?? null }
report.bounds = win.options.x === undefined ? null : { x: win.options.x, y: win.options.y }

// The log file in the data dir, private, with the start line.
const logFile = join(dataDir, 'watchdesk.log')
report.log = existsSync(logFile)
  ? {
      mode: (statSync(logFile).mode & 0o777).toString(8),
      started: readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg === 'watchdesk desktop started'),
    }
  : null

if (scenario === 'session-end') {
  report.lockBefore = existsSync(join(dataDir, 'watchdesk.lock'))
  win.emit('session-end', {})
  await until('the lock released', () => !existsSync(join(dataDir, 'watchdesk.lock')))
  report.lockAfter = existsSync(join(dataDir, 'watchdesk.lock'))
  report.trayDestroyed = record.trays[0].destroyed
  done(report)
}

if (scenario === 'outage') {
  // The chain's down alert went through the alerts capability (sent to the desktop channel, or
  // muted); by then the raw chains.status push that reported "down" has reached the shell too.
  const log = await untilAnswer(
    'the chain down alert',
    'alerts.log',
    {},
    (a) => a.ok && a.value.records.some((r) => r.rule === 'chain.down'),
  )
  await until('the tray showing the chain down', () => record.trays[0].tooltip.includes('down'))
  await turns()
  report.alertLog = log.value.records.map((r) => [r.rule, r.kind, r.channel, r.result])
  report.notifications = record.notifications.map((n) => ({ title: n.title, urgency: n.urgency }))
  done(report)
}

if (scenario === 'close') {
  // What the first page asks for: the first-run checklist and the listener's state.
  report.firstRun = await record.ipc.get('watchdesk:call:app.firstRun')(mainFrame(), {})
  report.listenerStatus = await record.ipc.get('watchdesk:call:events.listener')(mainFrame(), {})
  report.closePrevented = prevented(win, 'close')
  report.visibleAfterClose = win.visible
  if (!report.closePrevented) {
    record.calls.length = 0
    win.emit('closed')
    app.emit('window-all-closed')
    report.afterRealClose = [...record.calls]
    if (report.afterRealClose.includes('app.quit')) {
      // As Electron goes on after app.quit: will-quit, which the shell holds until the back end has
      // closed (its worker threads stopped). Exiting before that tore down a worker thread that was
      // still loading better-sqlite3, which Node answers with a fatal error.
      app.emit('before-quit', { preventDefault() {} })
      prevented(app, 'will-quit')
      await until(
        'the back end to close and quit again',
        () => record.calls.filter((c) => c === 'app.quit').length >= 2,
      )
    }
  }
  done(report)
}

report.webPreferences = { ...win.options.webPreferences }
report.preloadExists = existsSync(win.options.webPreferences.preload)
report.icon = win.options.icon ? { exists: existsSync(win.options.icon) } : null
report.loaded = win.loaded
report.navigationPrevented = prevented(win.webContents, 'will-navigate', 'https://evil.example/')
report.windowOpen = win.webContents.windowOpenHandler({ url: 'https://evil.example/' })
report.windowOpenFile = win.webContents.windowOpenHandler({ url: 'file:///etc/passwd' })

// Permissions: the clipboard write of the window's top frame, nothing else.
const pageUrl = win.webContents.mainFrame.url
const ask = (contents, permission, isMainFrame, requestingUrl = pageUrl) =>
  new Promise((resolve) =>
    record.session.permissionRequest(contents, permission, resolve, { isMainFrame, requestingUrl }),
  )
const check = (contents, permission, isMainFrame, requestingUrl = pageUrl) =>
  record.session.permissionCheck(contents, permission, 'file:///', { isMainFrame, requestingUrl })
const otherContents = new EventEmitter()
report.permissions = {
  clipboardWrite: await ask(win.webContents, 'clipboard-sanitized-write', true),
  clipboardWriteIframe: await ask(win.webContents, 'clipboard-sanitized-write', false),
  clipboardWriteOtherContents: await ask(otherContents, 'clipboard-sanitized-write', true),
  clipboardWriteRemotePage: await ask(
    win.webContents,
    'clipboard-sanitized-write',
    true,
    'https://evil.example/',
  ),
  clipboardRead: await ask(win.webContents, 'clipboard-read', true),
  media: await ask(win.webContents, 'media', true),
  notifications: await ask(win.webContents, 'notifications', true),
  checkClipboardWrite: check(win.webContents, 'clipboard-sanitized-write', true),
  checkClipboardWriteIframe: check(win.webContents, 'clipboard-sanitized-write', false),
  checkClipboardRead: check(win.webContents, 'clipboard-read', true),
  checkNotifications: check(win.webContents, 'notifications', true),
}
report.csp = await new Promise((resolve) =>
  record.session.headersReceived({ responseHeaders: { 'Content-Security-Policy': ['default-src *'] } }, (r) =>
    resolve(r.responseHeaders['Content-Security-Policy']),
  ),
)

// Any other web contents (a devtools or a stray webview): navigation and windows refused too.
const other = Object.assign(new EventEmitter(), {
  setWindowOpenHandler(h) {
    this.handler = h
  },
})
app.emit('web-contents-created', {}, other)
report.otherNavigationPrevented = prevented(other, 'will-navigate', 'https://evil.example/')
report.otherWindowOpen = other.handler?.({ url: 'https://evil.example/' })

// IPC: one handler per contract method; the window's main frame accepted whatever its URL text,
// an iframe, another frame with the same URL and the main frame showing a remote page refused.
const frame = win.webContents.mainFrame
report.ipcChannels = [...record.ipc.keys()]
report.ipcOwn = await health(mainFrame(), {})
report.ipcIframe = await health(
  { senderFrame: { url: pageUrl, parent: frame, processId: 7, routingId: 999 } },
  {},
)
report.ipcLookalike = await health(
  { senderFrame: { url: pageUrl, parent: null, processId: 8, routingId: 999 } },
  {},
)
report.ipcLookalikeByFileUrl = await health(
  { senderFrame: { url: report.indexFileUrl, parent: null, processId: 8, routingId: 999 } },
  {},
)
frame.url = 'https://evil.example/'
report.ipcMainFrameRemote = await health(mainFrame(), {})
frame.url = pageUrl

// Tray, menu and About.
const tray = record.trays[0]
// The tray's facts come from four answers and their pushes: wait for the whole line.
await until('the tray summary', () =>
  /no incidents · no chains configured · \d+ events\/min/.test(tray.tooltip),
)
report.trayTooltip = tray.tooltip
report.trayMenu = tray.menu.map((i) => i.label ?? i.type)
report.applicationMenu = record.applicationMenu.map((m) => m.label ?? m.role)
report.about = record.about

// Single instance: a second launch shows and focuses the window.
record.calls.length = 0
app.emit('second-instance', {}, [], '/')
report.secondInstance = [...record.calls]

// Closing hides to the tray (a tray host is there, desktop.closeToTray defaults to true).
win.bounds = { x: 100, y: 80, width: 1500, height: 900 }
report.closePrevented = prevented(win, 'close')
report.visibleAfterClose = win.visible
const stateFile = join(dataDir, 'window-state.json')
report.windowState = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : null

// While the window is hidden, alerting events arrive through the real listener: a desktop
// notification each, kept (click, close and failed handled), and the tray counts them.
const sendTest = record.ipc.get('watchdesk:call:events.sendTest')
report.sendTest = await sendTest(mainFrame(), { type: 'payout.failed' })
await sendTest(mainFrame(), { type: 'funding.completed' })
await until('the notification', () => record.notifications.length > 0 && tray.tooltip.includes('unseen'))
await sendTest(mainFrame(), { type: 'funding.failed' })
await until(
  'the second notification',
  () => record.notifications.length === 2 && tray.tooltip.includes('2 unseen'),
)
report.notifications = record.notifications.map((n) => ({
  title: n.title,
  urgency: n.urgency,
  silent: n.silent,
}))
report.notificationHandlers = record.shownNotifications.map((n) =>
  ['click', 'close', 'failed'].map((e) => n.listenerCount(e)),
)
// One fails to show (Windows without the shortcut, macOS unsigned): the log says so.
record.shownNotifications[1].emit('failed', {}, 'stand-in: the notification server refused it')
await until('the failure logged', () => readFileSync(logFile, 'utf8').includes('could not be shown'))
// The listener's status (pushed each second while it changes) brings the events per minute.
await until('the events per minute in the tray', () => /· [1-9]\d* events\/min/.test(tray.tooltip))
report.trayWithUnseen = {
  tooltip: tray.tooltip,
  badge: record.badge,
  menu: tray.menu.map((i) => i.label ?? i.type),
}
// A click on the first notification opens the Events view.
record.calls.length = 0
record.shownNotifications[0].emit('click')
report.notificationClick = [...record.calls]
tray.menu.find((i) => i.label === 'Open watchdesk').click()
report.trayAfterOpen = { tooltip: tray.tooltip, badge: record.badge, visible: win.visible }
report.trayUpdates = { ...tray.updates }
report.trayTooltips = [...tray.tooltips]

// "Mute 1 h" from the console: an alerting event is recorded as muted and shows nothing.
await record.ipc.get('watchdesk:call:alerts.mute')(mainFrame(), { minutes: 60 })
await sendTest(mainFrame(), { type: 'payout.failed' })
const mutedLog = await untilAnswer(
  'the muted alert',
  'alerts.log',
  {},
  (a) => a.ok && a.value.records.some((r) => r.result === 'muted'),
)
await turns()
report.mutedAlerts = mutedLog.value.records
  .filter((r) => r.result === 'muted')
  .map((r) => [r.rule, r.title, r.channel])
report.notificationsAfterMute = record.notifications.length

// Tray menu "Quit": before-quit, then will-quit waits for the back end to close; the tray and the
// IPC handlers are disposed.
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
report.ipcAfterQuit = record.ipc.size
report.lockAfterQuit = existsSync(join(dataDir, 'watchdesk.lock'))
done(report)
