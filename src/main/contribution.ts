import type { RetentionRules } from './db/retention'

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
}
