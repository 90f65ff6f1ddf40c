import type { SecretStore } from '../secrets'
import { accounts } from '../secrets'

/** The project uid from the keychain (or WATCHDESK_PROJECT_UID), with the problem reading it. */
export async function readProjectUid(
  secrets: SecretStore,
): Promise<{ uid: string | null; problem: string | null }> {
  const stored = await secrets.get(accounts.projectUid)
  if (!stored.ok) return { uid: null, problem: stored.error.message }
  return { uid: stored.value?.trim() || null, problem: null }
}
