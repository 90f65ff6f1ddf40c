import { deepLinkBase } from '../../shared/links'
import type { AppContext } from '../context'

/** Links in alerts: the public console address when one is configured (a proxy in front of
 * serve), else serve's own address; the desktop app's deep links otherwise. */
export function alertLinkBase(ctx: Pick<AppContext, 'config' | 'shell' | 'consoleUrl'>): string | null {
  const configured = ctx.config().listener.publicConsoleUrl
  if (configured) return configured
  if (ctx.shell === 'electron') return deepLinkBase
  return ctx.consoleUrl()
}
