/** BrowserWindow settings of the desktop shell, kept free of 'electron' so tests can read them.
 * Electron's security checklist: isolated, sandboxed, no Node in the page, no remote content. */
export const secureWebPreferences = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  spellcheck: false,
} as const

export { contentSecurityPolicy as desktopCsp } from '../../shared/csp'

export const windowDefaults = {
  width: 1280,
  height: 800,
  minWidth: 960,
  minHeight: 600,
  backgroundColor: '#0f1216',
  title: 'watchdesk',
  show: false,
}
