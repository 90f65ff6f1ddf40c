import { confirmMinMs } from '../shared/chains/health'
import type { Config } from '../shared/config'
import type { DoctorCheck } from '../shared/contract/app'
import type { KeyTest, PaymentsStatus } from '../shared/contract/payments'
import type { Result } from '../shared/result'
import type { RetentionRules } from './db/retention'
import type { SecretStore } from './secrets'
import type { TimeReferences } from '../shared/time-references'
import type { Registry } from 'prom-client'

/** What a capability adds to the places every capability shares (docs/architecture.md,
 * "Contributions"): plain data, exported once from its index.ts as `contribution`, and iterated by
 * the composers from one list (`contributions` in src/main/contributions.ts). Adding to a
 * capability (an aging table, a keep rule) touches its own folder only. */
export interface Contribution {
  /** The capability, as its folder under src/main. */
  name: string
  /** The tables it owns: only its folder's SQL names them (test/repo/table-ownership.test.ts), apart
   * from the migrations and the reads declared below. */
  tables: readonly string[]
  /** Another capability's tables its SQL reads, and why: a declared read port. */
  reads?: readonly { table: string; why: string }[]
  /** Its aging tables, the rows of others it needs kept, the rows of its own that go with another's. */
  retention?: RetentionRules
  /** Its checks in `watchdesk doctor` and Settings → Doctor, in this order. */
  doctor?: readonly DoctorContribution[]
}

/** A started service's figures for `GET /metrics`, registered when metrics are first needed
 * (`api/metrics.ts` iterates every service that has them): it imports its own metrics module, and
 * with it prom-client, only then. */
export interface ServiceMetrics {
  metrics(registry: Registry): Promise<void>
}

/** A state a rule watches: an incident opens when it turns active (after `confirm`), closes when
 * it turns inactive. */
export interface Condition {
  rule: string
  subject: string
  serviceId: number | null
  active: boolean
  title: string
  body: string
  /** "Polygon" in "Polygon recovered after 4 min 12 s". */
  name: string
  /** Observations in a row and time before opening; none for statuses confirmed upstream. */
  confirm?: { count: number; ms: number }
  /** When what led to it began (the first failed poll of an error rate), if before its first
   * observation: the incident starts there, so its duration is the outage's. */
  since?: number | null
  /** When it was observed (the poll's time), if not now: confirmation counts from it and an
   * incident it ends closes at it (a recovery at the first good poll, not at the round's publish). */
  at?: number
  /** With `active: false`: its subject is gone (a removed source), so an open incident closes
   * with this reason ("source removed") and a `closed` alert, not a recovery. */
  gone?: string
}

/** 3 observations in a row and 15 s: how the alert engine debounces a condition not confirmed
 * upstream. */
export const engineConfirm = { count: 3, ms: confirmMinMs }

/** One look at a capability's status as conditions for the alert rules (forward targets gone, a
 * relay source unreachable): the alerts' one status loop calls it every few seconds
 * (`AlertsService.watch`). It may remember what it saw, to close a condition whose subject went. */
export type ConditionSource = () => Condition[]

/** What a capability's doctor check is given (`watchdesk doctor` and Settings → Doctor alike). */
export interface DoctorContext {
  /** The loaded config; null when it does not load (see `DoctorContribution.withoutConfig`). */
  config: Config | null
  env: NodeJS.ProcessEnv
  secrets: SecretStore
  /** 'keychain' when the keychain check failed: a check needing a secret is blocked by it. */
  keychainDown: string | null
  /** The payments API as the doctor asks it: the app's own service, or one the CLI built. */
  payments(): Result<DoctorPayments>
  /** This process's own console and listener (the app): their ports are in use by us. */
  own?: { consoleUrl: string | null; listenerUrl: string | null }
  /** Relay stores to open (`--store sqlite:PATH | postgres://…`). */
  stores: string[]
  /** Where the doctor's own poll round reports block stamps and Date headers (the clock line). */
  timeRefs?: TimeReferences
}

/** What the payments check asks of the payments service. */
export interface DoctorPayments {
  status(): Promise<Result<PaymentsStatus>>
  testKey(override: Record<string, never>): Promise<Result<KeyTest>>
  listEndpoints(): Promise<Result<unknown>>
}

/** A capability's doctor check: its lines, run within the doctor's deadline (on none in time, one
 * failed line of this area and label). Without a config it is left out, says it is blocked by
 * it, or runs (a check that needs none). */
export type DoctorContribution = {
  area: DoctorCheck['area']
  label: string
} & (
  | {
      withoutConfig: 'blocked' | 'left out'
      run(ctx: DoctorContext & { config: Config }): Promise<DoctorCheck[]>
    }
  | { withoutConfig: 'runs'; run(ctx: DoctorContext): Promise<DoctorCheck[]> }
)

/** A doctor line, `blockedBy` null unless given. */
export const doctorLine = (
  l: Omit<DoctorCheck, 'blockedBy'> & { blockedBy?: string | null },
): DoctorCheck => ({
  ...l,
  blockedBy: l.blockedBy ?? null,
})
