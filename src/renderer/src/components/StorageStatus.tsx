import type { StorageStatus as Storage } from '../../../shared/contract/storage'
import { usePushedValue } from '../api/pushed-value'
import { StatusBadge } from './Status'

const words: Record<Exclude<Storage['state'], 'ok'>, string> = {
  full: 'disk full',
  locked: 'locked',
  failing: 'failing',
  stalled: 'stalled',
}

/** The database's state as a badge: red with the cause and the fix while it cannot commit, amber
 * with the fix while free space is low, null while all is well. One decision for the sidebar, the
 * listener strip and the Overview's console tile. */
export function storageBadge(status: Storage): { tone: 'bad' | 'warn'; label: string; title: string } | null {
  if (status.state !== 'ok')
    return {
      tone: 'bad',
      label: words[status.state],
      title: `${status.cause ?? ''} ${status.fix ?? ''}`.trim(),
    }
  if (status.lowSpace) return { tone: 'warn', label: 'disk low', title: status.lowSpace }
  return null
}

/** Red with the cause and the fix while the database cannot commit; nothing while it can (calm
 * when all is well). `status` from a parent that already has it (the listener strip), else this
 * asks once and follows the `storage.status` push. */
export function StorageStatus({ status, banner = false }: { status?: Storage | null; banner?: boolean }) {
  const followed = usePushedValue('storage.status', 'storage.status', status === undefined)
  const shown = status === undefined ? followed : status
  if (!shown) return null
  const badge = storageBadge(shown)
  if (!badge) return null
  if (!banner) return <StatusBadge tone={badge.tone} label={`storage: ${badge.label}`} title={badge.title} />
  if (badge.tone === 'warn')
    return (
      <p className="banner banner-warn" role="status">
        {badge.title}
      </p>
    )
  return (
    <p className="banner banner-bad" role="alert">
      The database cannot commit, so webhooks are answered 503 until it can. {badge.title}
    </p>
  )
}
