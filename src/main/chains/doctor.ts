import type { Config } from '../../shared/config'
import type { DoctorCheck } from '../../shared/contract/app'
import { doctorLine as line } from '../contribution'
import type { DoctorContext, DoctorContribution } from '../contribution'
import { pollerFor } from './configured'
import { readProjectUid } from './project-uid'

async function nodeAccessCheck(
  input: DoctorContext,
  config: Config,
  keychainDown: string | null,
): Promise<DoctorCheck[]> {
  const label = 'Node access'
  const { uid, problem } = await readProjectUid(input.secrets)
  if (problem && keychainDown)
    return [
      line({
        area: 'node-access',
        label,
        state: 'fail',
        detail: `blocked by: ${keychainDown}`,
        fix: null,
        blockedBy: keychainDown,
      }),
    ]
  const missing = [!config.rpcBaseUrl && 'rpcBaseUrl', !uid && 'the project uid'].filter(Boolean)
  // A chain with its own chains.<id>.url needs neither.
  const ownUrls = Object.values(config.chains).some((c) => c.url && c.enabled !== false)
  if (missing.length > 0 && !ownUrls)
    return [
      line({
        area: 'node-access',
        label,
        state: 'warn',
        detail: `chains are not polled: no ${missing.join(' and no ')}`,
        fix: [
          !config.rpcBaseUrl && 'watchdesk config set rpcBaseUrl https://rpc.example.com',
          !uid && 'printf %s "$PROJECT_UID" | watchdesk project-uid set',
        ]
          .filter(Boolean)
          .join('\n'),
      }),
    ]
  const poller = pollerFor(config, uid, undefined, problem, undefined, true, input.timeRefs)
  try {
    const chains = (await poller.pollRound()).chains.filter((c) => c.status !== 'not_configured')
    if (chains.length === 0)
      return [
        line({
          area: 'node-access',
          label,
          state: 'warn',
          detail: 'no chain is enabled',
          fix: 'watchdesk config set chains.<id>.enabled true',
        }),
      ]
    const bad = chains.filter((c) => c.status === 'down' || c.status === 'wrong_network')
    const names = (list: typeof chains) =>
      list
        .slice(0, 3)
        .map((c) => `${c.name}: ${c.reason}`)
        .join('; ') + (list.length > 3 ? `; and ${list.length - 3} more` : '')
    if (bad.length === 0)
      return [
        line({
          area: 'node-access',
          label,
          state: 'ok',
          detail: `${chains.length} chain${chains.length === 1 ? '' : 's'} answer at ${config.rpcBaseUrl}`,
          fix: null,
        }),
      ]
    return [
      line({
        area: 'node-access',
        label,
        state: bad.length === chains.length ? 'fail' : 'warn',
        detail: `${bad.length} of ${chains.length} chains do not answer: ${names(bad)}`,
        fix: 'watchdesk chains   # each chain with its reason',
      }),
    ]
  } finally {
    poller.stop()
  }
}

/** Node access: the project uid and one poll round of the configured chains. */
export const chainsDoctor: DoctorContribution = {
  area: 'node-access',
  label: 'Node access',
  withoutConfig: 'blocked',
  run: (ctx) => nodeAccessCheck(ctx, ctx.config, ctx.keychainDown),
}
