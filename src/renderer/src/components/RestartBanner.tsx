import { usePushedValue } from '../api/pushed-value'

/** Across the whole window: a configuration edit that could not be applied, and settings changed
 * since start that only take effect after a restart (listener address, TLS). */
export function RestartBanner() {
  const status = usePushedValue('app.configStatus', 'app.config')
  if (!status) return null
  return (
    <>
      {status.problem && (
        <div className="banner banner-bad" role="alert" aria-label="Configuration edit not applied">
          {status.problem}
        </div>
      )}
      {status.restartRequired.length > 0 && (
        <div className="banner banner-warn" role="status" aria-label="Restart required">
          Restart watchdesk to apply <span className="mono">{status.restartRequired.join(', ')}</span>: the
          webhook listener still runs with the values it started with.
        </div>
      )}
    </>
  )
}
