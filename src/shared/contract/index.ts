import { z } from 'zod'
import type { MethodSpec } from './define'
import { appMethods, appPushes, doctorMethods } from './app'
import { paymentsMethods, paymentsPushes } from './payments'
import { eventsMethods, eventsPushes } from './events'
import { chainsMethods, chainsPushes } from './chains'
import { storageMethods, storagePushes } from './storage'
import { alertsMethods, alertsPushes } from './alerts'
import { sourcesMethods, sourcesPushes } from './sources'
import { forwardMethods, forwardPushes } from './forward'
import { settingsMethods } from './settings'
import { replayMethods, replayPushes } from './replay'
import { driftMethods, driftPushes } from './drift'
import { clockMethods, clockPushes } from './clock'
import { disablementMethods, disablementPushes } from './disablement'

/** The one list of API methods. Preload, IPC handlers, HTTP routes and the renderer client all
 * derive from it; each capability declares its own methods in a sibling file. */
export const methods = {
  ...appMethods,
  ...doctorMethods,
  ...paymentsMethods,
  ...eventsMethods,
  ...chainsMethods,
  ...storageMethods,
  ...alertsMethods,
  ...sourcesMethods,
  ...forwardMethods,
  ...settingsMethods,
  ...replayMethods,
  ...driftMethods,
  ...clockMethods,
  ...disablementMethods,
} satisfies Record<string, MethodSpec>

/** Live updates pushed from the back end (IPC `send` under Electron, server-sent events in serve). */
export const pushes = {
  /** Sent by each transport every few seconds (src/shared/liveness.ts): silence means the back end is
   * gone. `at` is the back end's clock (ms since the epoch). */
  'app.heartbeat': z.object({ at: z.number() }),
  ...appPushes,
  ...paymentsPushes,
  ...eventsPushes,
  ...chainsPushes,
  ...storagePushes,
  ...alertsPushes,
  ...sourcesPushes,
  ...forwardPushes,
  ...replayPushes,
  ...driftPushes,
  ...clockPushes,
  ...disablementPushes,
} satisfies Record<string, z.ZodType>

export type Methods = typeof methods
export type MethodName = keyof Methods & string
export const methodNames = Object.keys(methods) as MethodName[]
export type RequestOf<K extends MethodName> = z.input<Methods[K]['request']>
export type ParsedRequestOf<K extends MethodName> = z.output<Methods[K]['request']>
export type ResponseOf<K extends MethodName> = z.output<Methods[K]['response']>

export type Pushes = typeof pushes
export type PushTopic = keyof Pushes & string
export const pushTopics = Object.keys(pushes) as PushTopic[]
export type PushPayload<T extends PushTopic> = z.output<Pushes[T]>
export type PushMessage = { [T in PushTopic]: { topic: T; payload: PushPayload<T> } }[PushTopic]

export const isMethodName = (name: string): name is MethodName => Object.hasOwn(methods, name)
export const isPushTopic = (topic: string): topic is PushTopic => Object.hasOwn(pushes, topic)

/** IPC channel names, derived, never typed by hand. */
export const ipcChannel = (name: MethodName): string => `watchdesk:call:${name}`
export const ipcPushChannel = 'watchdesk:push'
