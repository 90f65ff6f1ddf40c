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

/** Settings' Test of one reference of a chain: chain id, head and latency, nothing stored. */
export const ReferenceTest = z.object({
  serviceId: z.number().int(),
  name: z.string().nullable(),
  /** The URL with anything secret in its path masked. */
  endpoint: z.string(),
  expectedChainId: z.number().int(),
  chainId: z.number().int().nullable(),
  head: z.number().int().nullable(),
  latencyMs: z.number().nullable(),
  verdict: z.enum(['ok', 'wrong_chain', 'failed']),
  detail: z.string(),
})
export type ReferenceTest = z.infer<typeof ReferenceTest>

const referenceHeaders = z.record(z.string().min(1).max(200), z.string().max(4096))

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
  'settings.test.reference': method(
    'eth_chainId and eth_blockNumber at one reference of a chain: a saved one by name, or a URL not saved yet',
    z
      .object({
        serviceId: z.number().int().positive(),
        name: z.string().max(64).optional(),
        url: z.string().max(2048).optional(),
        headers: referenceHeaders.optional(),
      })
      .strict(),
    ReferenceTest,
  ),
  'settings.references.add': method(
    'Add a reference to a chain (chains.<id>.references), checked by the config schema; the older referenceUrl becomes the reference named "reference"',
    z
      .object({
        serviceId: z.number().int().positive(),
        name: z.string().max(64),
        url: z.string().max(2048),
        headers: referenceHeaders.optional(),
      })
      .strict(),
    SettingsUpdate,
  ),
  'settings.references.remove': method(
    'Remove a reference of a chain by name (the older referenceUrl is the one named "reference")',
    z.object({ serviceId: z.number().int().positive(), name: z.string().max(64) }).strict(),
    SettingsUpdate,
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
