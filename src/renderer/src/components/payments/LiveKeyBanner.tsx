import { useEffect } from 'react'
import { useNow } from '../../hooks/useNow'
import { usePaymentsStore } from '../../stores/payments'

/** Across the whole window: a live key in use, and a key the service is rate limiting. */
export function LiveKeyBanner() {
  const status = usePaymentsStore((s) => s.status)
  const attach = usePaymentsStore((s) => s.attach)
  useEffect(() => {
    const attached = attach()
    return () => attached.dispose()
  }, [attach])
  const live = status?.live === true
  useEffect(() => {
    document.body.classList.toggle('live-mode', live)
    return () => document.body.classList.remove('live-mode')
  }, [live])
  const limitedUntil = status?.rateLimit.limitedUntil ?? null
  const now = useNow(limitedUntil !== null)
  const limited = limitedUntil !== null && limitedUntil > now
  return (
    <>
      {live && (
        <div className="live-banner" role="alert" aria-label="Live key in use">
          <strong>LIVE</strong>
          <span>
            Key <span className="mono">{status.activeKey?.masked}</span> ({status.activeKey?.name}) moves real
            funds. Every write asks for confirmation.
          </span>
        </div>
      )}
      {limited && (
        <div className="banner banner-warn rate-banner" role="status">
          Key <span className="mono">{status?.rateLimit.masked}</span> is being rate limited by the service
          (429); retrying in <span className="num">{Math.ceil((limitedUntil - now) / 1000)}</span> s. Requests
          wait in the client’s queue ({status?.rateLimit.queued ?? 0}).
        </div>
      )}
    </>
  )
}
