import { z } from 'zod'
import { method } from './define'
import { ConfigStatus } from './app'
import { KeyTest } from './payments'

/** Settings: every configuration key an operator sets, validated by the back end with the schema
 * of the file (src/shared/config.ts) and saved through the one writer; the tests of the
 * connection values; the project uid (keychain only). */

export const FieldProblem = z.object({
  /** The dotted key (`chains.1.slug`), or '' for the file as a whole. */
  key: z.string(),
  /** The schema's own message. */
  message: z.string(),
})
export type FieldProblem = z.infer<typeof FieldProblem>

export const SettingsUpdate = z.object({
  saved: z.boolean(),
  /** Empty when saved; otherwise every key the schema refused, with its message. Nothing was written. */
  problems: z.array(FieldProblem),
  configStatus: ConfigStatus,
})
export type SettingsUpdate = z.infer<typeof SettingsUpdate>

export const RpcChainTest = z.object({
  serviceId: z.number().int(),
  name: z.string(),
  slug: z.string(),
  /** The chain id this network must answer (EIP-155). */
  expectedChainId: z.number().int(),
  /** What eth_chainId answered; null when the node did not answer. */
  chainId: z.number().int().nullable(),
  verdict: z.enum(['ok', 'wrong_chain', 'failed', 'not_polled']),
  detail: z.string(),
})
export type RpcChainTest = z.infer<typeof RpcChainTest>

export const RpcBaseTest = z.object({
  rpcBaseUrl: z.string().nullable(),
  chains: z.array(RpcChainTest),
  /** One sentence over the round: how many answered with the right chain id. */
  message: z.string(),
  works: z.boolean(),
})
export type RpcBaseTest = z.infer<typeof RpcBaseTest>

export const ProjectUidState = z.object({
  stored: z.boolean(),
  /** …last four; never the uid. */
  masked: z.string().nullable(),
  source: z.enum(['keychain', 'environment', 'memory']).nullable(),
  problem: z.string().nullable(),
})
export type ProjectUidState = z.infer<typeof ProjectUidState>

const dottedKey = z.string().min(1).max(200)

export const settingsMethods = {
  'settings.update': method(
    'Set and unset dotted config keys through the one writer, validated by the config schema',
    z
      .object({
        set: z.record(dottedKey, z.unknown()).default({}),
        unset: z.array(dottedKey).max(200).default([]),
      })
      .strict(),
    SettingsUpdate,
  ),
  'settings.test.api': method(
    'GET /v1/wallets at this API base URL (or the saved one) with the selected key',
    z.object({ apiBaseUrl: z.string().max(2048).optional() }).strict(),
    KeyTest,
  ),
  'settings.test.rpc': method(
    'One poll round over the twelve chains at this RPC base URL (or the saved one)',
    z.object({ rpcBaseUrl: z.string().max(2048).optional() }).strict(),
    RpcBaseTest,
  ),
  'settings.projectUid.get': method(
    'Whether a project uid is stored (masked)',
    z.object({}).strict(),
    ProjectUidState,
  ),
  'settings.projectUid.set': method(
    'Store the node-access project uid in the keychain (account project-uid)',
    z.object({ uid: z.string().min(1).max(512) }).strict(),
    ProjectUidState,
  ),
  'settings.projectUid.remove': method(
    'Remove the project uid from the keychain',
    z.object({}).strict(),
    ProjectUidState,
  ),
}
