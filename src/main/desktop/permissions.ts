/** The one web permission the console's page gets: writing text to the clipboard
 * (`navigator.clipboard.writeText`, used to copy the once-shown webhook secret). Chromium asks for
 * it as `clipboard-sanitized-write`; reading the clipboard, notifications, media and everything
 * else stay refused. */
export const grantedPermission = 'clipboard-sanitized-write'

export interface PermissionAsk {
  permission: string
  /** The request comes from the app's own window (not a devtools or any other web contents). */
  fromAppWindow: boolean
  /** From that window's top frame, not an iframe. */
  isMainFrame: boolean
}

/** Used for both Electron's permission request and permission check handlers. */
export function allowPermission(ask: PermissionAsk): boolean {
  return ask.permission === grantedPermission && ask.fromAppWindow && ask.isMainFrame
}
