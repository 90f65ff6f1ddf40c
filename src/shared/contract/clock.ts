import { z } from 'zod'
import { method } from './define'

/** The clock guard (issue 32.3): this machine's clock against independent references. */

export const clockReferenceKinds = ['chains', 'rpc_date', 'api_date', 'webhooks'] as const

export const ClockReference = z.object({
  kind: z.enum(clockReferenceKinds),
  label: z.string(),
  /** Local clock minus the reference, in seconds (positive: this machine is ahead); null without samples. */
  offsetSeconds: z.number().nullable(),
  /** Samples in the window (for chains: chains with a recent new block). */
  samples: z.number().int(),
  /** Counted in the estimate (chains need three chains with new blocks). */
  counted: z.boolean(),
})
export type ClockReference = z.infer<typeof ClockReference>

export const ClockStatus = z.object({
  /** unknown: no reference yet; ok: within the threshold; off: the references agree the clock is
   * off (block ages are corrected); unconfirmed: one reference alone says so; disagree: they differ. */
  state: z.enum(['unknown', 'ok', 'off', 'unconfirmed', 'disagree']),
  /** The median of the counted references (seconds, positive: this machine is ahead). */
  offsetSeconds: z.number().nullable(),
  /** What block ages are corrected by (0 unless `off`). */
  correctionSeconds: z.number(),
  thresholdSeconds: z.number(),
  references: z.array(ClockReference),
  /** One sentence: what the references say. */
  message: z.string(),
  /** How to fix it (NTP), when there is something to fix. */
  fix: z.string().nullable(),
  at: z.string(),
})
export type ClockStatus = z.infer<typeof ClockStatus>

export const clockMethods = {
  'clock.status': method(
    "This machine's clock against the chains' block stamps, the HTTP Date of the RPC gateway and the payments API, and webhooks' created_at",
    z.object({}).strict(),
    ClockStatus,
  ),
}

export const clockPushes = {
  /** The clock guard's status when its state or offset changes. */
  'clock.status': ClockStatus,
}
