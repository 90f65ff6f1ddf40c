import { ok } from '../../shared/result'
import type { appMethods } from '../../shared/contract/app'
import type { AppContext } from '../context'
import type { ApiHandlers } from '../transport/dispatch'
import type { Services } from '../services'
import { firstRunChecks } from './first-run'
import { configAsShown } from './chains'

export function appApi(ctx: AppContext, services: Services): Pick<ApiHandlers, keyof typeof appMethods> {
  const listener = () => services.webhooks.address()
  return {
    'app.health': async () =>
      ok({
        status: 'ok' as const,
        version: ctx.version,
        shell: ctx.shell,
        demo: ctx.demo ?? false,
        startedAt: ctx.startedAt.toISOString(),
        dataDir: ctx.dataDir,
        logFile: ctx.log.file,
      }),
    'app.firstRun': async () => {
      const checks = await firstRunChecks({ ...ctx, listener })
      return ok({ checks, complete: checks.every((c) => c.state !== 'missing') })
    },
    'app.configStatus': async () => ok(ctx.configStore.status()),
    'settings.get': async () => {
      const loaded = ctx.loadedConfig()
      return ok({
        dataDir: ctx.dataDir,
        configFile: loaded.file,
        overlayFile: loaded.overlayFile,
        consoleUrl: ctx.consoleUrl(),
        listenerUrl: listener().url,
        listenerProblem: listener().problem?.message ?? null,
        // Node URLs masked, the project uid nowhere (issue 9): see configAsShown.
        config: await configAsShown(ctx),
        keychain: await ctx.secrets.status(),
        configStatus: ctx.configStore.status(),
      })
    },
  }
}
