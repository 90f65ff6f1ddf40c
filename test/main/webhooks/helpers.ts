import { writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'
import { startBackend } from '../../../src/main/backend'
import type { Backend } from '../../../src/main/backend'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import type { SecretStore } from '../../../src/main/secrets'
import type { PushMessage } from '../../../src/shared/contract'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

export const secretA = 'whsec_test_8c1f0e2a9b7d4c3e'
export const secretB = 'whsec_other_secret_5a6b'

export interface TestBackend extends Backend {
  webhookUrl: string
  pushes: PushMessage[]
  dataDir: string
}

/** A real back end (SQLite on disk, listener on a free loopback port) with two endpoint secrets;
 * closed after each test, or after the file's tests with `per: 'file'` (one started in `beforeAll`
 * and shared by tests that each use their own event ids). */
export function useWebhookBackend({ per = 'test' }: { per?: 'test' | 'file' } = {}): (options?: {
  secrets?: SecretStore
  config?: Record<string, unknown>
}) => Promise<TestBackend> {
  const tempDir = useTempDir('watchdesk-webhooks-', { per })
  const started: Backend[] = []
  ;(per === 'file' ? afterAll : afterEach)(async () => {
    for (const b of started.splice(0)) await b.close()
  })
  return async (options = {}) => {
    const dataDir = tempDir()
    let configFile: string | undefined
    if (options.config) {
      configFile = join(dataDir, 'overlay.json')
      writeFileSync(configFile, JSON.stringify(options.config))
    }
    const backend = unwrap(
      await startBackend({
        dataDir,
        configFile,
        shell: 'serve',
        env: {},
        log: silentLogger,
        listenerPort: 0,
        secrets:
          options.secrets ??
          createMemoryStore({ 'webhook-secret:wh_alpha': secretA, 'webhook-secret:wh_beta': secretB }),
      }),
    )
    started.push(backend)
    const pushes: PushMessage[] = []
    backend.context.push.subscribe((m) => pushes.push(m))
    return Object.assign(backend, {
      webhookUrl: `${backend.services.webhooks.address().url}/webhooks`,
      pushes,
      dataDir,
    })
  }
}

export interface Answer {
  status: number
  body: string
}

/** A raw POST with node:http (fetch would refuse some of the malformed requests we send). */
export function post(
  url: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

export const countEvents = (b: Backend): number =>
  (b.context.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n

export const envelope = (
  id: string,
  type = 'funding.completed',
  data: Record<string, unknown> = { id: `fund_${id}` },
) => JSON.stringify({ id, type, created_at: '2026-11-20T10:15:00Z', data })
