import { z } from 'zod'
import { defaultNotificationPatterns } from './events'
import { PaymentsConfigShape } from './payments/config'

/** The config keys users and scripts rely on (DESIGN.md). `config.json` in the data dir holds the
 * operator's saved values; `--config FILE` is laid over it. Secrets never live here. */

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http:// or https:// URL')

export const ChainConfig = z
  .object({
    slug: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'a slug is lowercase letters, digits and dashes')
      .optional(),
    url: httpUrl.optional(),
    referenceUrl: httpUrl.optional(),
    enabled: z.boolean().optional(),
    pollIntervalMs: z.number().int().min(250).max(600_000).optional(),
    /** Health thresholds; the defaults derive from the chain's block time. */
    laggingAfterSeconds: z.number().positive().max(86_400).optional(),
    stalledAfterSeconds: z.number().positive().max(86_400).optional(),
    /** Per-request time-out of the JSON-RPC calls (default 4000 ms). */
    timeoutMs: z.number().int().min(100).max(60_000).optional(),
  })
  .strict()
export type ChainConfig = z.infer<typeof ChainConfig>

export const ListenerConfig = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(7421),
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    tls: z
      .object({ certFile: z.string().min(1), keyFile: z.string().min(1) })
      .strict()
      .optional(),
    /** A sender that has not sent all headers / the whole body by then is cut off (408). */
    headersTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
    bodyTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** The public HTTPS address (tunnel or reverse proxy) that forwards to this listener, as
     * registered by "Connect this console"; its reachability is re-checked periodically. */
    publicUrl: httpUrl.optional(),
    /** The 200 answer body for card.authorization.request (the service does not define one). */
    authorizationAnswer: z.record(z.string(), z.unknown()).default({}),
  })
  .strict()

export const NotificationsConfig = z
  .object({
    /** Event types that raise a desktop notification; `*` matches any run of characters. */
    eventTypes: z.array(z.string().min(1)).default([...defaultNotificationPatterns]),
  })
  .strict()

export const DesktopConfig = z
  .object({
    /** Closing the window keeps the console running in the tray (polling, listener, notifications). */
    closeToTray: z.boolean().default(true),
  })
  .strict()

export const Config = z
  .object({
    apiBaseUrl: httpUrl.optional(),
    rpcBaseUrl: httpUrl.optional(),
    pollIntervalMs: z.number().int().min(250).max(600_000).default(5000),
    chains: z.record(z.string().regex(/^\d+$/, 'chains are keyed by service id'), ChainConfig).default({}),
    listener: ListenerConfig.default(ListenerConfig.parse({})),
    notifications: NotificationsConfig.default(NotificationsConfig.parse({})),
    desktop: DesktopConfig.default(DesktopConfig.parse({})),
    ...PaymentsConfigShape,
  })
  .strict()
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>

export const defaultConsolePort = 7420
