import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, BrowserWindow, ipcMain, session, shell } from 'electron'
import { resolveDataDir } from './config'
import { startBackend } from './backend'
import type { Backend } from './backend'
import { bindIpc, forwardPushes, isOwnRenderer } from './transport/ipc'
import { desktopCsp, secureWebPreferences, windowDefaults } from './desktop/window'

/** The Electron shell: window, IPC binding and hardening. Everything else lives behind startBackend
 * and runs, and is tested, under plain Node. */

if (!app.requestSingleInstanceLock()) app.quit()

const rendererIndex = join(import.meta.dirname, '../renderer/index.html')
const devServerUrl = process.env.ELECTRON_RENDERER_URL
let backend: Backend | null = null
let mainWindow: BrowserWindow | null = null

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    ...windowDefaults,
    webPreferences: { ...secureWebPreferences, preload: join(import.meta.dirname, '../preload/index.cjs') },
  })
  win.once('ready-to-show', () => win.show())
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
  win.webContents.on('will-navigate', (event) => event.preventDefault())
  win.webContents.on('will-attach-webview', (event) => event.preventDefault())
  if (devServerUrl) void win.loadURL(devServerUrl)
  else void win.loadFile(rendererIndex)
  return win
}

function harden(): void {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  session.defaultSession.setPermissionCheckHandler(() => false)
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [desktopCsp] } })
  })
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault())
    contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  })
}

async function start(): Promise<void> {
  harden()
  const started = await startBackend({ dataDir: resolveDataDir(undefined), shell: 'electron' })
  if (!started.ok) {
    const { dialog } = await import('electron')
    dialog.showErrorBox('watchdesk cannot start', started.error.message)
    app.exit(1)
    return
  }
  backend = started.value
  bindIpc({
    ipcMain,
    handlers: backend.handlers,
    isTrustedSender: isOwnRenderer(pathToFileURL(rendererIndex).href, devServerUrl),
    log: backend.context.log,
  })
  mainWindow = createWindow()
  forwardPushes(backend.context.push, mainWindow.webContents)
}

app.on('second-instance', () => {
  if (!mainWindow) return
  if (mainWindow.isMinimized()) mainWindow.restore()
  mainWindow.focus()
})
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})
app.on('will-quit', () => {
  void backend?.close()
})
void app.whenReady().then(start)
