import { z } from 'zod'
import { method } from './define'

export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  shell: z.enum(['electron', 'serve']),
  startedAt: z.string(),
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
  config: z.record(z.string(), z.unknown()),
  keychain: KeychainStatus,
})
export type SettingsView = z.infer<typeof SettingsView>

export const appMethods = {
  'app.health': method('Liveness of the back end', z.object({}).strict(), Health),
  'settings.get': method('Effective configuration, where it came from, and the keychain state', z.object({}).strict(), SettingsView),
}
