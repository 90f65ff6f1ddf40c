import type { Config } from '../../shared/config'
import type { DoctorCheck } from '../../shared/contract/app'
import { doctorLine as line } from '../contribution'
import type { DoctorContext, DoctorContribution } from '../contribution'
import { accounts } from '../secrets'
import { fetchPage } from './client'

async function sourcesChecks(
  input: DoctorContext,
  config: Config,
  keychainDown: string | null,
): Promise<DoctorCheck[]> {
  const entries = Object.entries(config.sources).filter(([, s]) => s.enabled !== false)
  return Promise.all(
    entries.map(async ([name, source]): Promise<DoctorCheck> => {
      const label = `Relay ${name}`
      const token = await input.secrets.get(accounts.sourceToken(name))
      if (!token.ok)
        return line({
          area: 'sources',
          label,
          state: 'fail',
          detail: keychainDown ? `blocked by: ${keychainDown}` : token.error.message,
          fix: null,
          blockedBy: keychainDown,
        })
      if (!token.value)
        return line({
          area: 'sources',
          label,
          state: 'fail',
          detail: `no token stored as source-token:${name}`,
          fix: `watchdesk relay token create NAME --store … | watchdesk sources add ${name} ${source.url}`,
        })
      const page = await fetchPage(source.url, token.value, '0', 1, false, AbortSignal.timeout(8_000))
      return page.ok
        ? line({ area: 'sources', label, state: 'ok', detail: `${source.url} accepts the token`, fix: null })
        : line({ area: 'sources', label, state: 'fail', detail: page.error.message, fix: null })
    }),
  )
}

/** Each enabled relay source: is a token stored, and does the relay accept it? */
export const sourcesDoctor: DoctorContribution = {
  area: 'sources',
  label: 'Relay sources',
  withoutConfig: 'left out',
  run: (ctx) => sourcesChecks(ctx, ctx.config, ctx.keychainDown),
}
