import { views as viewList } from '../../shared/views'

/** Menu templates as plain data (Electron's MenuItemConstructorOptions, the part used here), so
 * the roles and entries are tested under Node; the shell passes them to Menu.buildFromTemplate. */
export interface MenuItem {
  label?: string
  role?: string
  type?: 'separator' | 'normal'
  accelerator?: string
  enabled?: boolean
  submenu?: MenuItem[]
  click?: () => void
}

export interface AppMenuActions {
  about(): void
  openDataDir(): void
  showView(route: string): void
}

/** The console's views (src/shared/views.ts), which the Go menu and notifications open. */
export const views = viewList.map((v) => [v.id, v.label, v.key] as const)

/** The usual application menu: app (macOS), File, Edit, View, Go, Window, Help, built from roles so
 * copy/paste, zoom and window handling behave as on every other app of the platform. Reload and
 * developer tools are left out of packaged builds. */
export function applicationMenu(options: {
  platform: NodeJS.Platform
  appName: string
  packaged: boolean
  actions: AppMenuActions
}): MenuItem[] {
  const { platform, appName, packaged, actions } = options
  const mac = platform === 'darwin'
  const about: MenuItem = { label: `About ${appName}`, click: actions.about }
  const menu: MenuItem[] = []
  if (mac) {
    menu.push({
      label: appName,
      submenu: [
        about,
        sep(),
        { role: 'services' },
        sep(),
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        sep(),
        { role: 'quit' },
      ],
    })
  }
  menu.push({
    label: 'File',
    submenu: [
      { label: 'Open Data Folder', click: actions.openDataDir },
      sep(),
      mac ? { role: 'close' } : { role: 'quit' },
    ],
  })
  menu.push({
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      sep(),
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
    ],
  })
  menu.push({
    label: 'View',
    submenu: [
      ...(packaged ? [] : [{ role: 'reload' }, { role: 'toggleDevTools' }, sep()]),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      sep(),
      { role: 'togglefullscreen' },
    ],
  })
  menu.push({
    label: 'Go',
    submenu: views.map(([route, label, key]) => ({
      label,
      accelerator: `CmdOrCtrl+${key}`,
      click: () => actions.showView(route),
    })),
  })
  menu.push({ role: 'windowMenu' })
  menu.push({ label: 'Help', role: 'help', submenu: mac ? [] : [about] })
  return menu
}

export interface TrayMenuActions {
  open(): void
  quit(): void
}

/** The tray's menu: what is wrong in one line, then open and quit. */
export function trayMenu(options: {
  summary: string
  unseenAlerts: number
  actions: TrayMenuActions
}): MenuItem[] {
  const { summary, unseenAlerts, actions } = options
  return [
    { label: summary, enabled: false },
    ...(unseenAlerts > 0
      ? [{ label: `${unseenAlerts} unseen alerting event${unseenAlerts === 1 ? '' : 's'}`, enabled: false }]
      : []),
    sep(),
    { label: 'Open watchdesk', click: actions.open },
    { label: 'Quit watchdesk', click: actions.quit },
  ]
}

const sep = (): MenuItem => ({ type: 'separator' })

/** What closing the window does: hide to the tray (polling and the listener go on) unless the
 * operator turned `desktop.closeToTray` off, the app is quitting, or there is no tray to return from. */
export function closeAction(options: {
  closeToTray: boolean
  quitting: boolean
  trayShown: boolean
}): 'hide' | 'close' {
  return options.closeToTray && options.trayShown && !options.quitting ? 'hide' : 'close'
}

/** Text of the About panel: version from package.json, build stamped when the bundle was built,
 * and where this instance keeps its data and its log (the effective data dir, after
 * WATCHDESK_DATA_DIR, which a Dock or Start-menu launch does not see). */
export function aboutText(options: {
  appName: string
  version: string
  build: string
  electron?: string
  chrome?: string
  node?: string
  dataDir?: string
  logFile?: string | null
}): {
  title: string
  detail: string
} {
  const runtime = [
    options.electron && `Electron ${options.electron}`,
    options.chrome && `Chromium ${options.chrome}`,
    options.node && `Node ${options.node}`,
  ].filter(Boolean)
  return {
    title: `${options.appName} ${options.version}`,
    detail: [
      `Version ${options.version}`,
      `Build ${options.build}`,
      ...runtime,
      ...(options.dataDir ? [`Data folder ${options.dataDir}`] : []),
      ...(options.logFile ? [`Log ${options.logFile}`] : []),
    ].join('\n'),
  }
}
