// A stand-in for the 'electron' module, as far as the built shell (out/main/index.js) uses it.
// Everything the shell does to it is recorded on globalThis.electronStandIn for the driver.
import { EventEmitter } from 'node:events'
import { resolve } from 'node:path'
import { format } from 'node:url'

const record = {
  windows: [],
  trays: [],
  menus: [],
  notifications: [],
  ipc: new Map(),
  session: {},
  calls: [],
}
globalThis.electronStandIn = record
const call = (what) => record.calls.push(what)

class App extends EventEmitter {
  isPackaged = true
  #ready = Promise.withResolvers()
  requestSingleInstanceLock = () => true
  setAsDefaultProtocolClient = (scheme) => call(`app.setAsDefaultProtocolClient ${scheme}`)
  whenReady = () => this.#ready.promise
  ready = () => this.#ready.resolve()
  quit = () => call('app.quit')
  exit = (code) => call(`app.exit ${code}`)
  setAboutPanelOptions = (o) => (record.about = o)
  showAboutPanel = () => call('app.showAboutPanel')
  setBadgeCount = (n) => (record.badge = n)
  setAppUserModelId = (id) => (record.appUserModelId = id)
  setToastActivatorCLSID = (id) => (record.toastActivatorClsid = id)
  paths = { userData: '/standin/userData', sessionData: '/standin/userData' }
  getPath = (name) => this.paths[name]
  setPath = (name, value) => ((this.paths[name] = value), call(`app.setPath ${name}`))
}
export const app = new App()

let routingIds = 0
class WebContents extends EventEmitter {
  mainFrame = { url: '', parent: null, processId: 7, routingId: ++routingIds }
  windowOpenHandler = null
  reload = () => call('webContents.reload')
  setWindowOpenHandler = (h) => (this.windowOpenHandler = h)
  sent = []
  send = (channel, message) => this.sent.push({ channel, message })
  isDestroyed = () => false
  executeJavaScript = async (code) => call(`executeJavaScript ${code}`)
}

export class BrowserWindow extends EventEmitter {
  constructor(options) {
    super()
    this.options = options
    this.webContents = new WebContents()
    this.bounds = { x: options.x, y: options.y, width: options.width, height: options.height }
    this.visible = false
    record.windows.push(this)
    app.emit('web-contents-created', {}, this.webContents)
  }
  // As Electron's loadFile builds the URL (url.format, then Chromium's canonical form): a '%' in
  // the path stays a bare '%', where pathToFileURL() writes %25.
  loadFile = async (file) => {
    this.loaded = { file }
    this.webContents.mainFrame.url = new URL(
      format({ protocol: 'file', slashes: true, pathname: resolve(file) }),
    ).href
  }
  loadURL = async (url) => ((this.loaded = { url }), (this.webContents.mainFrame.url = url))
  show = () => ((this.visible = true), call('win.show'))
  hide = () => ((this.visible = false), call('win.hide'))
  focus = () => (call('win.focus'), this.emit('focus'))
  restore = () => call('win.restore')
  maximize = () => call('win.maximize')
  isVisible = () => this.visible
  isFocused = () => this.visible
  isMinimized = () => false
  isMaximized = () => false
  isFullScreen = () => false
  isDestroyed = () => false
  getBounds = () => this.bounds
  getNormalBounds = () => this.bounds
  setBounds = (b) => (this.bounds = b)
  setTitle = (t) => ((this.title = t), call(`win.setTitle ${t}`))
}

export const ipcMain = {
  handle: (channel, listener) => record.ipc.set(channel, listener),
  removeHandler: (channel) => record.ipc.delete(channel),
}

export const Menu = {
  buildFromTemplate: (template) => {
    // STANDIN_THROW=menu: a bug in the shell after the back end started.
    if (process.env.STANDIN_THROW === 'menu') throw new Error('stand-in: Menu.buildFromTemplate failed')
    return { template }
  },
  setApplicationMenu: (menu) => (record.applicationMenu = menu.template),
}

export class Notification extends EventEmitter {
  static isSupported = () => true
  constructor(options) {
    super()
    this.options = options
  }
  show = () => {
    record.notifications.push(this.options)
    ;(record.shownNotifications ??= []).push(this)
  }
}

export const session = {
  defaultSession: {
    setPermissionRequestHandler: (h) => (record.session.permissionRequest = h),
    setPermissionCheckHandler: (h) => (record.session.permissionCheck = h),
    setDevicePermissionHandler: (h) => (record.session.devicePermission = h),
    webRequest: { onHeadersReceived: (h) => (record.session.headersReceived = h) },
  },
}

export const shell = {
  openExternal: async (url) => call(`openExternal ${url}`),
  openPath: async (p) => call(`openPath ${p}`),
}
export const dialog = {
  showErrorBox: (title, message) => call(`showErrorBox ${title}: ${message}`),
  showMessageBox: async (...args) => ((record.messageBox = args.at(-1)), { response: 0 }),
}
// The primary display is not the first of the list (Electron promises no order).
const displays = [
  { workArea: { x: -1280, y: 0, width: 1280, height: 1024 } },
  { workArea: { x: 0, y: 0, width: 1920, height: 1080 } },
]
export const screen = { getAllDisplays: () => displays, getPrimaryDisplay: () => displays[1] }

class NativeImage {
  constructor(bitmap, size) {
    this.reps = [{ bitmap, size }]
  }
  addRepresentation = (r) => this.reps.push(r)
}
export const nativeImage = { createFromBitmap: (bitmap, size) => new NativeImage(bitmap, size) }

export class Tray extends EventEmitter {
  constructor(image) {
    super()
    this.image = image
    record.trays.push(this)
  }
  updates = { image: 0, tooltip: 0, menu: 0 }
  destroyed = false
  setImage = (i) => ((this.image = i), this.updates.image++)
  tooltips = []
  setToolTip = (t) => ((this.tooltip = t), this.tooltips.push(t), this.updates.tooltip++)
  setTitle = (t) => (this.title = t)
  setContextMenu = (m) => ((this.menu = m.template), this.updates.menu++)
  isDestroyed = () => this.destroyed
  destroy = () => ((this.destroyed = true), call('tray.destroy'))
}

export default {
  app,
  BrowserWindow,
  ipcMain,
  Menu,
  Notification,
  session,
  shell,
  dialog,
  screen,
  nativeImage,
  Tray,
}
