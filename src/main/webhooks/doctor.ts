import type { Config } from '../../shared/config'
import type { DoctorCheck } from '../../shared/contract/app'
import { doctorLine as line } from '../contribution'
import type { DoctorContext, DoctorContribution } from '../contribution'
import { explainFailure, listenerIdentityHeader, probe } from './public-url'

async function publicUrlCheck(input: DoctorContext, config: Config): Promise<DoctorCheck[]> {
  const label = 'Public URL'
  const publicUrl = config.listener.publicUrl
  if (!publicUrl) {
    const relays = Object.keys(config.sources).length
    return [
      line({
        area: 'public-url',
        label,
        state: relays > 0 ? 'ok' : 'warn',
        detail:
          relays > 0
            ? 'not set: events arrive through the relay sources'
            : 'listener.publicUrl is not set: the service cannot deliver webhooks to this console',
        fix:
          relays > 0
            ? null
            : 'Expose the listener through a tunnel or proxy, then Settings → Webhook endpoints → Connect this console',
      }),
    ]
  }
  const url = new URL(publicUrl)
  const outcome = await probe(url, { method: 'HEAD', env: input.env, timeoutMs: 8_000 })
  if (outcome.kind === 'failed') {
    const { message, fix } = explainFailure(url, outcome, input.own?.listenerUrl ?? null)
    return [line({ area: 'public-url', label, state: 'fail', detail: message, fix })]
  }
  if (outcome.headers[listenerIdentityHeader])
    return [
      line({
        area: 'public-url',
        label,
        state: 'ok',
        detail: `${publicUrl} reaches a watchdesk listener`,
        fix: null,
      }),
    ]
  return [
    line({
      area: 'public-url',
      label,
      state: 'warn',
      detail: `${publicUrl} answered ${outcome.status}, but not from a watchdesk listener (no ${listenerIdentityHeader} header)`,
      fix: 'Point the tunnel or proxy at the listener port (7421), not the console; a relay answers for itself.',
    }),
  ]
}

/** The public URL: does it reach this listener? */
export const webhooksDoctor: DoctorContribution = {
  area: 'public-url',
  label: 'Public URL',
  withoutConfig: 'left out',
  run: (ctx) => publicUrlCheck(ctx, ctx.config),
}
