import { z } from 'zod'
import { method } from './define'

export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  shell: z.enum(['electron', 'serve']),
  /** `serve --demo`: every service is a local stand-in (sandbox payments API, local nodes). */
  demo: z.boolean(),
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

/** The configuration file as the running back end sees it (the one writer; hand edits are
 * followed live). */
export const ConfigStatus = z.object({
  file: z.string(),
  /** Content hash of the config.json in use ("none" without a file). */
  revision: z.string(),
  /** When the running back end last applied a change (ISO time), null if none since start. */
  changedAt: z.string().nullable(),
  /** An edit of the file that could not be applied (invalid JSON, a bad key named), with the fix;
   * the last valid configuration stays in use. Null when the file is in use as it is. */
  problem: z.string().nullable(),
  /** Dotted keys changed since start that only take effect after a restart (listener.port, …). */
  restartRequired: z.array(z.string()),
})
export type ConfigStatus = z.infer<typeof ConfigStatus>

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
  configStatus: ConfigStatus,
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
  /** The item that has to be fixed first (its fix is written there, once); null when none. */
  blockedBy: z.enum(['keychain']).nullable(),
})
export type FirstRunCheck = z.infer<typeof FirstRunCheck>
/** complete: nothing is missing (a warning, such as secrets from the environment, does not block). */
export const FirstRun = z.object({ checks: z.array(FirstRunCheck), complete: z.boolean() })

/** One line of `watchdesk doctor` (and Settings → Doctor): what was checked, found, and the fix.
 * A line that cannot be checked until another is fixed names that one in `blockedBy`. */
export const DoctorCheck = z.object({
  area: z.enum([
    'node',
    'keychain',
    'data-dir',
    'config',
    'ports',
    'payments',
    'scopes',
    'node-access',
    'public-url',
    'sources',
    'store',
    'clock',
  ]),
  label: z.string(),
  state: z.enum(['ok', 'warn', 'fail']),
  detail: z.string(),
  /** What to do (commands one a line), null when nothing is to be done. */
  fix: z.string().nullable(),
  blockedBy: z.string().nullable(),
})
export type DoctorCheck = z.infer<typeof DoctorCheck>
/** ok: no line failed (warnings do not fail the doctor: exit 0). */
export const DoctorReport = z.object({ checks: z.array(DoctorCheck), ok: z.boolean() })
export type DoctorReport = z.infer<typeof DoctorReport>

/** Its own group: the doctor reads every capability, so its handler needs the services. */
export const doctorMethods = {
  'app.doctor': method(
    'The doctor: Node, keychain, data dir, config, ports, payments API and scopes, node access, public URL, relay sources',
    z.object({}).strict(),
    DoctorReport,
  ),
}

export const appMethods = {
  'app.health': method('Liveness of the back end', z.object({}).strict(), Health),
  'app.firstRun': method(
    'First-run checklist: keychain, listener port, node access, API key',
    z.object({}).strict(),
    FirstRun,
  ),
  'app.configStatus': method(
    'The configuration file in use: revision, an edit that could not be applied, restart needed',
    z.object({}).strict(),
    ConfigStatus,
  ),
  'settings.get': method(
    'Effective configuration, where it came from, and the keychain state',
    z.object({}).strict(),
    SettingsView,
  ),
}

export const appPushes = {
  /** The configuration changed or an edit of it failed (sent with every change). */
  'app.config': ConfigStatus,
}
