import { join, relative, resolve, sep } from 'node:path'

/** Where Electron keeps its own files (`userData`: preferences, the single-instance lock;
 * `sessionData`: Chromium's caches, cookies, local storage), kept apart from the data dir that
 * holds watchdesk.db and config.json, which stays where the CLI finds it. Electron's defaults
 * would put them in the data dir itself on macOS (~/Library/Application Support/watchdesk) and
 * Windows (%APPDATA%\watchdesk). On Linux they are apart already (~/.config/watchdesk against
 * ~/.local/share/watchdesk) and stay where they are unless the data dir was pointed there. */
export const electronDirName = 'dev.watchdesk.console'

export interface ElectronPaths {
  userData: string
  sessionData: string
}

export function electronPaths(options: {
  platform: NodeJS.Platform
  env: NodeJS.ProcessEnv
  home: string
  dataDir: string
  /** Electron's default userData (app.getPath('userData') before any change). */
  defaultUserData: string
}): ElectronPaths | null {
  const { platform, env, home, dataDir, defaultUserData } = options
  let paths: ElectronPaths
  if (platform === 'darwin') {
    paths = {
      userData: join(home, 'Library', 'Application Support', electronDirName),
      sessionData: join(home, 'Library', 'Caches', electronDirName),
    }
  } else if (platform === 'win32') {
    const roaming = env.APPDATA ?? join(home, 'AppData', 'Roaming')
    const local = env.LOCALAPPDATA ?? join(home, 'AppData', 'Local')
    paths = { userData: join(roaming, electronDirName), sessionData: join(local, electronDirName, 'Session') }
  } else {
    if (!overlaps(defaultUserData, dataDir)) return null
    const config = env.XDG_CONFIG_HOME || join(home, '.config')
    const cache = env.XDG_CACHE_HOME || join(home, '.cache')
    paths = { userData: join(config, electronDirName), sessionData: join(cache, electronDirName) }
  }
  return overlaps(paths.userData, dataDir) || overlaps(paths.sessionData, dataDir)
    ? {
        userData: join(dataDir, '..', `${electronDirName}-electron`),
        sessionData: join(dataDir, '..', `${electronDirName}-session`),
      }
    : paths
}

/** One folder is the other or inside it. */
export function overlaps(a: string, b: string): boolean {
  const inside = (x: string, y: string) => {
    const r = relative(resolve(y), resolve(x))
    return r === '' || (!r.startsWith('..') && !r.startsWith(sep) && !/^[a-zA-Z]:/.test(r))
  }
  return inside(a, b) || inside(b, a)
}
