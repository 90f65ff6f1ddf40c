import { z } from 'zod'
import { method } from './define'

export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  shell: z.enum(['electron', 'serve']),
  startedAt: z.string(),
  /** The effective data dir (after --data-dir / WATCHDESK_DATA_DIR), for Settings and About. */
  dataDir: z.string(),
  /** The log file the desktop app writes (watchdesk.log in the data dir); null when the log goes
   * to stderr only (serve, the CLI). */
  logFile: z.string().nullable(),
})

export const KeychainStatus = z.object({
  reachable: z.boolean(),
  backend: z.enum(['keychain', 'environment']),
  message: z.string(),
})

export const SettingsView = z.object({
  dataDir: z.string(),
  configFile: z.string(),
  overlayFile: z.string().nullable(),
  consoleUrl: z.string().nullable(),
  listenerUrl: z.string().nullable(),
  /** Why the listener is not running, with the fix (null while it listens). */
  listenerProblem: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  keychain: KeychainStatus,
})
export type SettingsView = z.infer<typeof SettingsView>

/** One item of the first-run checklist: its state in words, and the fix written next to it. */
export const FirstRunCheck = z.object({
  id: z.enum(['keychain', 'listener', 'node-access', 'api-key']),
  label: z.string(),
  state: z.enum(['ok', 'warn', 'missing']),
  detail: z.string(),
  /** What to do, null when nothing is to be done. */
  fix: z.string().nullable(),
})
export type FirstRunCheck = z.infer<typeof FirstRunCheck>
/** complete: nothing is missing (a warning, such as secrets from the environment, does not block). */
export const FirstRun = z.object({ checks: z.array(FirstRunCheck), complete: z.boolean() })

export const appMethods = {
  'app.health': method('Liveness of the back end', z.object({}).strict(), Health),
  'app.firstRun': method(
    'First-run checklist: keychain, listener port, node access, API key',
    z.object({}).strict(),
    FirstRun,
  ),
  'settings.get': method(
    'Effective configuration, where it came from, and the keychain state',
    z.object({}).strict(),
    SettingsView,
  ),
}
