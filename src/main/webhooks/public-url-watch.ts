import type { PublicUrlState } from '../../shared/contract/payments'
import type { AppContext } from '../context'

export interface PublicUrlWatch {
  state(): PublicUrlState
  /** Checks listener.publicUrl now (after "Connect this console", or on demand). */
  checkNow(): Promise<PublicUrlState>
  stop(): void
}

const unset: PublicUrlState = {
  url: null,
  state: 'unchecked',
  cause: null,
  checkedAt: null,
  message: 'No public URL: use "Connect this console" with the address of a tunnel or reverse proxy.',
  fix: null,
}

/** Re-checks listener.publicUrl every `everyMs` (and when it changes) and publishes each change,
 * so the listener's reachability from outside is shown beside it, never assumed. */
export function startPublicUrlWatch(
  ctx: Pick<AppContext, 'config' | 'onConfigChange' | 'push' | 'log'>,
  // The listener's check (WebhookService.checkPublicUrl), named by shape: index.ts re-exports this file.
  webhooks: { checkPublicUrl(publicUrl: string, env?: NodeJS.ProcessEnv): Promise<PublicUrlState> },
  env: NodeJS.ProcessEnv,
  everyMs = 60_000,
): PublicUrlWatch {
  let current: PublicUrlState = unset
  let running: Promise<PublicUrlState> | null = null
  const publish = (next: PublicUrlState) => {
    const changed =
      next.state !== current.state || next.message !== current.message || next.url !== current.url
    current = next
    if (changed) ctx.push.publish('payments.publicUrl', next)
    return next
  }
  const checkNow = (): Promise<PublicUrlState> => {
    const url = ctx.config().listener.publicUrl
    if (!url) return Promise.resolve(publish(unset))
    running ??= webhooks
      .checkPublicUrl(url, env)
      .then(publish)
      .catch((error: unknown) => {
        ctx.log.error('checking the public URL failed', { error })
        return current
      })
      .finally(() => (running = null))
    return running
  }
  let lastUrl = ctx.config().listener.publicUrl
  const offConfig = ctx.onConfigChange((config) => {
    if (config.listener.publicUrl === lastUrl) return
    lastUrl = config.listener.publicUrl
    void checkNow()
  })
  const timer = setInterval(() => void checkNow(), everyMs)
  timer.unref()
  void checkNow()
  return {
    state: () => current,
    checkNow,
    stop() {
      clearInterval(timer)
      offConfig.dispose()
    },
  }
}
