import type { Result } from '../../shared/result'

export interface SecretEntry {
  account: string
  secret: string
  source: 'keychain' | 'environment' | 'memory'
}

export interface KeychainStatus {
  reachable: boolean
  backend: 'keychain' | 'environment'
  message: string
}

/** Secrets stay in the main process: nothing here is ever sent to the renderer, a log or SQLite. */
export interface SecretStore {
  get(account: string): Promise<Result<string | null>>
  set(account: string, secret: string): Promise<Result<void>>
  delete(account: string): Promise<Result<boolean>>
  list(): Promise<Result<SecretEntry[]>>
  status(): Promise<KeychainStatus>
}
