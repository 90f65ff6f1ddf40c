import { execFile } from 'node:child_process'

/** Whether a tray icon will be visible. macOS and Windows always have one. On Linux Electron shows
 * its tray through the StatusNotifierItem protocol, so an icon appears only when a
 * StatusNotifierWatcher owns its name on the session bus (KDE, Cinnamon, XFCE with the plugin,
 * GNOME only with the AppIndicator extension). Without one, closing the window must not hide the
 * app: there would be nothing to bring it back from. Unknown counts as absent. */
export const statusNotifierWatcher = 'org.kde.StatusNotifierWatcher'

export type RunCommand = (file: string, args: string[]) => Promise<string>

const runCommand: RunCommand = (file, args) =>
  new Promise((resolve, reject) =>
    execFile(file, args, { timeout: 2000, encoding: 'utf8' }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  )

export async function trayHostAvailable(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  run: RunCommand = runCommand,
): Promise<boolean> {
  if (platform !== 'linux') return true
  if (!env.DBUS_SESSION_BUS_ADDRESS && !env.XDG_RUNTIME_DIR) return false
  try {
    const reply = await run('dbus-send', [
      '--session',
      '--print-reply',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      `string:${statusNotifierWatcher}`,
    ])
    return /\bboolean\s+true\b/.test(reply)
  } catch {
    return false
  }
}
