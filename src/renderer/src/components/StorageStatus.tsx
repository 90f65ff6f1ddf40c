import type { StorageStatus as Storage } from '../../../shared/contract/storage'
import { usePushedValue } from '../api/pushed-value'
import { StatusBadge } from './Status'

const labels: Record<Storage['state'], string> = {
  ok: 'storage ok',
  full: 'storage: disk full',
  locked: 'storage: locked',
  failing: 'storage failing',
  stalled: 'storage stalled',
}

/** Red with the cause and the fix while the database cannot commit; nothing while it can (calm
 * when all is well). `status` from a parent that already has it (the listener strip), else this
 * asks once and follows the `storage.status` push. */
export function StorageStatus({ status, banner = false }: { status?: Storage | null; banner?: boolean }) {
  const followed = usePushedValue('storage.status', 'storage.status', status === undefined)
  const shown = status === undefined ? followed : status
  if (!shown) return null
  if (shown.state === 'ok') {
    // Before the disk is full: amber, with the fix, while writes still go through.
    if (!shown.lowSpace) return null
    if (banner)
      return (
        <p className="banner banner-warn" role="status">
          {shown.lowSpace}
        </p>
      )
    return <StatusBadge tone="warn" label="storage: disk low" title={shown.lowSpace} />
  }
  const text = `${shown.cause ?? ''} ${shown.fix ?? ''}`.trim()
  if (banner)
    return (
      <p className="banner banner-bad" role="alert">
        The database cannot commit, so webhooks are answered 503 until it can. {text}
      </p>
    )
  return <StatusBadge tone="bad" label={labels[shown.state]} title={text} />
}
