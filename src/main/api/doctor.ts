import type { DoctorCheck, doctorMethods } from '../../shared/contract/app'
import type { AppContext } from '../context'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'
import { maskUrlsIn } from '../../shared/config-secrets'
import { ok } from '../../shared/result'
import { loadConfig } from '../config'
import { doctorLine as line } from '../contribution'
import type { DoctorContext } from '../contribution'
import { contributions } from '../contributions'
import { configCheck, dataDirCheck, keychainCheck, nodeCheck, portOf, portsCheck } from './doctor-host'
import type { DoctorInput } from './doctor-host'
import { clockProbe } from '../clock'

export { nodeCandidates } from './doctor-host'
export type { DoctorInput } from './doctor-host'

/** The host's checks (Node.js, keychain, data dir, config, ports), then each capability's own
 * (`doctor` in its contribution), each within the deadline. */
export async function runDoctor(input: DoctorInput): Promise<DoctorCheck[]> {
  const deadline = input.deadlineMs ?? 10_000
  const loaded = loadConfig(input.dataDir, input.overlayFile)
  const config = loaded.ok ? loaded.value.config : null
  const [node, keychain] = await Promise.all([nodeCheck(input.env), keychainCheck(input, deadline)])
  // The clock is read against the node-access round's block stamps and the gateway's Date.
  const clock = clockProbe(config?.clock.offsetWarnSeconds ?? 5)
  const ctx: DoctorContext = {
    config,
    timeRefs: clock.references,
    env: input.env,
    secrets: input.secrets,
    keychainDown: keychain.state === 'fail' ? 'keychain' : null,
    payments: input.payments,
    own: input.own,
    stores: input.stores ?? [],
  }
  const blocked = (area: DoctorCheck['area'], label: string): DoctorCheck =>
    line({ area, label, state: 'fail', detail: 'blocked by: config', fix: null, blockedBy: 'config' })
  const capabilityChecks = contributions
    .flatMap((c) => c.doctor ?? [])
    .map((check) => {
      if (check.withoutConfig === 'runs') return within(check.run(ctx), deadline, check.area, check.label)
      if (config) return within(check.run({ ...ctx, config }), deadline, check.area, check.label)
      return Promise.resolve(check.withoutConfig === 'blocked' ? [blocked(check.area, check.label)] : [])
    })
  const rest = await Promise.all([
    Promise.resolve(dataDirCheck(input.dataDir)),
    Promise.resolve(configCheck(loaded)),
    config ? portsCheck(input, config) : Promise.resolve([blocked('ports', 'Ports')]),
    ...capabilityChecks,
  ])
  // A check may quote a configured URL (a source's, apiBaseUrl): never with its credentials.
  const clockLine = clock.line()
  return maskUrlsIn([node, keychain, ...rest.flat(), ...(clockLine ? [clockLine] : [])])
}

async function within(
  work: Promise<DoctorCheck[]>,
  ms: number,
  area: DoctorCheck['area'],
  label: string,
): Promise<DoctorCheck[]> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<DoctorCheck[]>((resolve) => {
    timer = setTimeout(
      () =>
        resolve([
          line({
            area,
            label,
            state: 'fail',
            detail: `no answer within ${ms / 1000} s`,
            fix: 'Check the network and the URL in the config; run the doctor again.',
          }),
        ]),
      ms,
    )
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Settings → Doctor: the same checks over the running console's own parts. */
export function doctorApi(
  ctx: AppContext,
  services: Services,
): Pick<ApiHandlers, keyof typeof doctorMethods> {
  return {
    'app.doctor': async () => {
      const checks = await runDoctor({
        dataDir: ctx.dataDir,
        overlayFile: ctx.loadedConfig().overlayFile ?? undefined,
        env: services.env,
        secrets: ctx.secrets,
        payments: () => ok(services.payments),
        consolePort: portOf(ctx.consoleUrl()) ?? 7420,
        own: { consoleUrl: ctx.consoleUrl(), listenerUrl: services.webhooks.address().url },
      })
      return ok({ checks, ok: checks.every((c) => c.state !== 'fail') })
    },
  }
}
