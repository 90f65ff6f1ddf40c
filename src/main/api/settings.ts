import { Config, ConfigObject } from '../../shared/config'
import type { FieldProblem, ProjectUidState, SettingsUpdate } from '../../shared/contract/settings'
import type { settingsMethods } from '../../shared/contract/settings'
import { maskSecret } from '../../shared/mask'
import { ok } from '../../shared/result'
import { readProjectUid, testReference, uidScrubber } from '../chains'
import { testRpcBase } from '../chains/probe'
import { splitKey } from '../config'
import { setPath, unsetPath } from '../config/dotted'
import type { AppContext } from '../context'
import { accounts } from '../secrets'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'

type SettingsHandlers = Pick<ApiHandlers, keyof typeof settingsMethods>

/** Settings: config keys through the one writer, validated field by field with the file's schema
 * so each message lands next to its field; the connection tests; the project uid (keychain). */
export function settingsApi(ctx: AppContext, services: Services): SettingsHandlers {
  const projectUid = async (): Promise<ProjectUidState> => {
    const listed = await ctx.secrets.list()
    if (!listed.ok) return { stored: false, masked: null, source: null, problem: listed.error.message }
    const entry = listed.value.find((e) => e.account === accounts.projectUid)
    return entry
      ? { stored: true, masked: maskSecret(entry.secret), source: entry.source, problem: null }
      : { stored: false, masked: null, source: null, problem: null }
  }
  /** Checks the change against the file's schema first (each message names its field), then
   * writes it through the one writer. */
  const save = async (apply: (saved: Record<string, unknown>) => void): Promise<SettingsUpdate> => {
    const draft = structuredClone(ctx.loadedConfig().saved)
    apply(draft)
    const parsed = Config.safeParse(draft)
    if (!parsed.success)
      return {
        saved: false,
        problems: parsed.error.issues.map((issue) => ({
          key: issue.path.map(String).join('.'),
          message: issue.message,
        })),
        configStatus: ctx.configStore.status(),
      }
    const written = await ctx.updateConfig(apply)
    return {
      saved: written.ok,
      problems: written.ok ? [] : [{ key: '', message: written.error.message }],
      configStatus: ctx.configStore.status(),
    }
  }
  return {
    'settings.update': async ({ set, unset }) => {
      const problems: FieldProblem[] = []
      const changes: { parts: string[]; value?: unknown; unset: boolean }[] = []
      for (const [key, value] of Object.entries(set)) {
        const parts = splitKey(key)
        if (parts.ok) changes.push({ parts: parts.value, value, unset: false })
        else problems.push({ key, message: parts.error.message })
      }
      for (const key of unset) {
        const parts = splitKey(key)
        if (parts.ok) changes.push({ parts: parts.value, unset: true })
        else problems.push({ key, message: parts.error.message })
      }
      const apply = (saved: Record<string, unknown>) => {
        for (const c of changes)
          if (c.unset) unsetPath(saved, c.parts)
          else setPath(saved, c.parts, structuredClone(c.value))
      }
      if (problems.length > 0) return ok({ saved: false, problems, configStatus: ctx.configStore.status() })
      return ok(await save(apply))
    },
    'settings.references.add': async ({ serviceId, name, url, headers }) =>
      ok(
        await save((saved) => {
          const chain = chainEntry(saved, serviceId)
          const list = adoptReferenceUrl(chain)
          list.push({ name: name.trim(), url: url.trim(), ...(headers ? { headers } : {}) })
          chain.references = list
        }),
      ),
    'settings.references.remove': async ({ serviceId, name }) =>
      ok(
        await save((saved) => {
          const chain = chainEntry(saved, serviceId)
          const list = adoptReferenceUrl(chain).filter((r) => r.name !== name)
          if (list.length > 0) chain.references = list
          else delete chain.references
        }),
      ),
    'settings.test.reference': async (input) => {
      const { uid } = await readProjectUid(ctx.secrets)
      return ok(await testReference(ctx.config(), input, uidScrubber(uid)))
    },
    'settings.test.api': async ({ apiBaseUrl }) => {
      const candidate = apiBaseUrl?.trim()
      return services.payments.testKey(candidate ? { baseUrl: candidate } : {})
    },
    'settings.test.rpc': async ({ rpcBaseUrl }) => {
      const candidate = rpcBaseUrl?.trim()
      if (candidate) {
        const valid = ConfigObject.shape.rpcBaseUrl.safeParse(candidate)
        if (!valid.success)
          return ok({
            rpcBaseUrl: candidate,
            chains: [],
            works: false,
            message: `rpcBaseUrl: ${valid.error.issues[0]?.message ?? 'not a URL'}.`,
          })
      }
      const { uid, problem } = await readProjectUid(ctx.secrets)
      return ok(await testRpcBase(ctx.config(), candidate || undefined, uid, problem))
    },
    'settings.projectUid.get': async () => ok(await projectUid()),
    'settings.projectUid.set': async ({ uid }) => {
      const stored = await ctx.secrets.set(accounts.projectUid, uid.trim())
      if (!stored.ok) return stored
      return ok(await projectUid())
    },
    'settings.projectUid.remove': async () => {
      const removed = await ctx.secrets.delete(accounts.projectUid)
      if (!removed.ok) return removed
      return ok(await projectUid())
    },
  }
}

type SavedReference = { name: string; url: string; headers?: Record<string, string> }

/** The saved `chains.<id>` object, created when missing. */
function chainEntry(saved: Record<string, unknown>, serviceId: number): Record<string, unknown> {
  const chains = (saved.chains ??= {}) as Record<string, Record<string, unknown>>
  return (chains[String(serviceId)] ??= {})
}

/** The saved references, with the older `referenceUrl` moved in as the one named "reference"
 * (the list is the one place references live once the operator edits them). */
function adoptReferenceUrl(chain: Record<string, unknown>): SavedReference[] {
  const list = Array.isArray(chain.references) ? [...(chain.references as SavedReference[])] : []
  if (typeof chain.referenceUrl === 'string') {
    if (!list.some((r) => r.name === 'reference'))
      list.unshift({ name: 'reference', url: chain.referenceUrl })
    delete chain.referenceUrl
  }
  return list
}
