import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

/** The lines that give a shell without a desktop session (ssh, a container, a bare server) a
 * Secret Service: a session bus, then gnome-keyring unlocked with a password read without echo.
 * dbus-daemon comes with the `dbus` package (dbus-launch needs dbus-x11, often absent), and
 * gnome-keyring creates the keyring at the first unlock. test/main/cli/doctor.test.ts runs these
 * exact lines and then finds the keychain reachable. */
export function headlessKeychainLines(env: NodeJS.ProcessEnv): string[] {
  const lines: string[] = []
  if (!onPath('dbus-daemon', env) || !onPath('gnome-keyring-daemon', env))
    lines.push('sudo apt-get install -y dbus gnome-keyring libsecret-1-0')
  if (!env.DBUS_SESSION_BUS_ADDRESS)
    lines.push('export DBUS_SESSION_BUS_ADDRESS=$(dbus-daemon --session --fork --print-address)')
  lines.push(
    `read -rsp 'Keyring password: ' pw; printf %s "$pw" | gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null; unset pw`,
  )
  return lines
}

/** Whether `command` is an executable file in one of PATH's folders. */
export function onPath(command: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const file = join(dir, command)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return null
}
