import { migration001 } from './migrations/001-meta'
import { migration002 } from './migrations/002-webhook-events'
import { migration003 } from './migrations/003-chain-samples'
import { migration004 } from './migrations/004-event-conflicts'
import { migration005 } from './migrations/005-alerts'
import { migration006 } from './migrations/006-relay-and-sources'
import { migration007 } from './migrations/007-forward-outbox'
import { migration008 } from './migrations/008-relay-token-scopes'
import { migration009 } from './migrations/009-alert-outbox'
import { migration010 } from './migrations/010-mute-source'
import { migration011 } from './migrations/011-forward-target-names'
import { migration012 } from './migrations/012-incident-causes'
import { migration013 } from './migrations/013-event-arrivals'
import { migration014 } from './migrations/014-payload-shapes'
import { migration015 } from './migrations/015-reachability-outages'
import type { Migration } from './migrations/migration'

export type { Migration } from './migrations/migration'

/** Numbered, append-only; each in its own file under migrations/, fixed once released. The
 * runner applies them in version order. */
export const migrations: Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004,
  migration005,
  migration006,
  migration007,
  migration008,
  migration009,
  migration010,
  migration011,
  migration012,
  migration013,
  migration014,
  migration015,
]
