import { BrowserWindow, screen, shell } from 'electron'
import appIcon from '../../../../build/icons/256x256.png?asset'
import { toDisposable } from '../../../shared/disposable'
import type { Disposable } from '../../../shared/disposable'
import type { Logger } from '../../log'
import { desktopCsp, secureWebPreferences, windowDefaults } from '../window'
import { placeWindow, readWindowState, windowStateFile, writeWindowState } from '../window-state'

export { desktopCsp }

/** The main window: hardened web preferences, navigation and new windows refused, size and
 * position restored from the data dir and saved when they change. It is shown at once (window
 * first): the background colour fills it until the page paints, so a slow keychain never looks
 * like an app that does not start. */
export function createMainWindow(options: {
  dataDir: string
  preload: string
  title: string
  load(win: BrowserWindow): void
  log: Logger
}): BrowserWindow {
  const file = windowStateFile(options.dataDir)
  const saved = readWindowState(file)
  if (saved.problem) options.log.warn(saved.problem)
  const placed = placeWindow(
    saved.state,
    { primary: screen.getPrimaryDisplay().workArea, all: screen.getAllDisplays().map((d) => d.workArea) },
    windowDefaults,
  )
  const win = new BrowserWindow({
    ...windowDefaults,
    title: options.title,
    x: placed.x,
    y: placed.y,
    width: placed.width,
    height: placed.height,
    // Linux takes the window's icon from here (macOS and Windows from the app bundle).
    ...(process.platform === 'linux' ? { icon: appIcon } : {}),
    webPreferences: { ...secureWebPreferences, preload: options.preload },
  })
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
  win.webContents.on('will-navigate', (event) => event.preventDefault())
  win.webContents.on('will-redirect', (event) => event.preventDefault())
  win.webContents.on('will-attach-webview', (event) => event.preventDefault())
  const remembering = rememberBounds(win, file, options.log)
  win.once('closed', () => remembering.dispose())
  if (placed.maximized) win.maximize()
  win.show()
  options.load(win)
  return win
}

/** Saves the bounds half a second after the last move or resize, and on close. Disposing the
 * result stops the pending save (the window's timer must not outlive it). */
function rememberBounds(win: BrowserWindow, file: string, log: Logger): Disposable {
  let timer: NodeJS.Timeout | undefined
  const save = () => {
    clearTimeout(timer)
    if (win.isDestroyed() || win.isMinimized() || win.isFullScreen()) return
    const bounds = win.isMaximized() ? win.getNormalBounds() : win.getBounds()
    try {
      writeWindowState(file, { ...bounds, maximized: win.isMaximized() })
    } catch (error) {
      log.warn('could not save the window state', { file, error: (error as Error).message })
    }
  }
  const later = () => {
    clearTimeout(timer)
    timer = setTimeout(save, 500)
  }
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(event as 'resize', later)
  win.on('close', save)
  return toDisposable(() => clearTimeout(timer))
}
