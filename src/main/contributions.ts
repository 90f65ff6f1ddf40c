import { joinRetentionRules } from './db/retention'
import type { Contribution } from './contribution'
import { contribution as webhooks } from './webhooks'
import { contribution as chains } from './chains'
import { contribution as payments } from './payments'
import { contribution as forward } from './forward'
import { contribution as relay } from './relay'
import { contribution as sources } from './sources'
import { contribution as alerts } from './alerts'

/** Every capability's contribution, in one list the composers iterate (docs/architecture.md,
 * "Contributions"). The order is the order of their doctor checks, and of their statements:
 * forward's keep rule on an event is tested before alerts'. The desktop shell contributes nothing here (and loads Electron). */
export const contributions: readonly Contribution[] = [
  payments,
  chains,
  webhooks,
  forward,
  sources,
  relay,
  alerts,
]

/** The retention rules of the console's database (and of a relay on a data dir a console used). */
export const retentionRules = joinRetentionRules(contributions.map((c) => c.retention ?? {}))
