import { z } from 'zod'

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
    tls: z.object({ certFile: z.string().min(1), keyFile: z.string().min(1) }).strict().optional(),
  })
  .strict()

export const Config = z
  .object({
    apiBaseUrl: httpUrl.optional(),
    rpcBaseUrl: httpUrl.optional(),
    pollIntervalMs: z.number().int().min(250).max(600_000).default(5000),
    chains: z.record(z.string().regex(/^\d+$/, 'chains are keyed by service id'), ChainConfig).default({}),
    listener: ListenerConfig.default(ListenerConfig.parse({})),
  })
  .strict()
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>

export const defaultConsolePort = 7420
