import { useEffect } from 'react'
import { StatusBadge } from '../Status'
import { useForwardStore } from './store'

const count = (n: number) => n.toLocaleString('en-US')

/** Per target, under the listener strip: delivered / pending / failing, and the last error. */
export function ForwardStrip() {
  const status = useForwardStore((s) => s.status)
  const attach = useForwardStore((s) => s.attach)
  useEffect(() => {
    const attached = attach()
    return () => attached.dispose()
  }, [attach])
  if (!status || status.targets.length === 0) return null
  return (
    <section className="panel forward-strip" aria-label="Forward targets">
      {status.problem && <p className="banner banner-bad">{status.problem}</p>}
      {status.targets.map((t) => (
        <div key={t.name} className="forward-strip-line">
          <StatusBadge
            tone={
              t.health === 'ok' ? 'good' : t.health === 'failing' || t.health === 'stopped' ? 'bad' : 'muted'
            }
            label={t.health === 'ok' ? 'forwarding' : t.health}
          />
          <span className="mono" title={t.url}>
            {t.adhoc ? t.url : `${t.name} → ${t.url}`}
          </span>
          <span className="dim">{t.events.join(', ') || 'replays only'}</span>
          <span className="spacer" />
          <span className="stat">
            delivered <b className="num">{count(t.delivered)}</b>
          </span>
          <span className="stat">
            pending <b className="num">{count(t.pending)}</b>
          </span>
          <span className={t.failing ? 'stat bad' : 'stat'}>
            failing <b className="num">{count(t.failing)}</b>
          </span>
          {t.gaveUp > 0 && (
            <span className="stat bad">
              gave up <b className="num">{count(t.gaveUp)}</b>
            </span>
          )}
          {(t.health === 'failing' || t.health === 'stopped') && t.lastError && (
            <span className="forward-error" title={t.lastError}>
              {t.lastError}
            </span>
          )}
        </div>
      ))}
    </section>
  )
}
